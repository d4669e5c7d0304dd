public import StratusSQL

/// A row that breaks a store's own invariants (an unknown environment, a missing row the
/// store just wrote), found by code that is the same on both SQL back ends.
public struct SQLStoreCorruption: Error, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The back end, for the description.
    public var dialect: SQLDialect

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - message: What is wrong, naming the row.
    ///   - dialect: The back end it was found on.
    public init(message: String, dialect: SQLDialect) {
        self.message = message
        self.dialect = dialect
    }

    /// `the SQLite record store is inconsistent: …` (or PostgreSQL).
    public var description: String {
        "the \(dialect == .sqlite ? "SQLite" : "PostgreSQL") record store is inconsistent: \(message)"
    }
}
