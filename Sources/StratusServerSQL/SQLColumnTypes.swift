public import StratusSQL

/// The column types of a schema written once for both back ends: SQLite's storage classes
/// (`INTEGER`, `BLOB`, `WITHOUT ROWID` tables) or PostgreSQL's types (`BIGINT`, `BYTEA`, `BOOLEAN`).
///
/// ```swift
/// let types = SQLColumnTypes(.postgres)
/// let ddl = "CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, n \(types.integer) NOT NULL)\(types.withoutRowID);"
/// ```
public struct SQLColumnTypes: Sendable {
    /// The dialect rendered.
    public let dialect: SQLDialect

    /// Types for `dialect`.
    ///
    /// - Parameter dialect: The back end's dialect.
    public init(_ dialect: SQLDialect) {
        self.dialect = dialect
    }

    /// A 64-bit integer.
    public var integer: String { dialect == .sqlite ? "INTEGER" : "BIGINT" }
    /// Bytes.
    public var blob: String { dialect == .sqlite ? "BLOB" : "BYTEA" }
    /// A Boolean (an integer 0 or 1 on SQLite).
    public var boolean: String { dialect == .sqlite ? "INTEGER" : "BOOLEAN" }
    /// A double.
    public var real: String { dialect == .sqlite ? "REAL" : "DOUBLE PRECISION" }
    /// `false` as a column default.
    public var falseLiteral: String { dialect == .sqlite ? "0" : "false" }
    /// A primary key the database numbers, in insertion order (`INTEGER PRIMARY KEY AUTOINCREMENT`
    /// on SQLite, an identity column on PostgreSQL).
    public var identityKey: String {
        dialect == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
    }
    /// A row's own integer key, numbered by the database (SQLite's rowid; an identity column on PostgreSQL).
    public var rowKey: String {
        dialect == .sqlite ? "INTEGER PRIMARY KEY" : "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
    }
    /// A condition that `column` is false, as the partial indexes and the queries that use them write it
    /// (SQLite matches a partial index only by the same literal term).
    public func isFalse(_ column: String) -> String {
        dialect == .sqlite ? "\(column) = 0" : "NOT \(column)"
    }
    /// What ends a table keyed by its primary key alone (` WITHOUT ROWID` on SQLite).
    public var withoutRowID: String { dialect == .sqlite ? " WITHOUT ROWID" : "" }
}
