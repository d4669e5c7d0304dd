/// An error reported by PostgreSQL or libpq, with the SQLSTATE, the server's message and the statement.
///
/// ```swift
/// do {
///     try connection.execute("INSERT INTO zones (id) VALUES ($1)", [id])
/// } catch let error as PostgresError where error.code == .uniqueViolation {
///     // the zone exists
/// }
/// ```
///
/// Statement parameters are never part of the error, so descriptions can be logged
/// without leaking user data.
public struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The SQLSTATE, such as ``Code/uniqueViolation`` (`23505`).
    public var code: Code
    /// The server's (or libpq's) explanation.
    public var message: String
    /// The statement that failed, if the failure concerns one.
    public var sql: String?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The SQLSTATE.
    ///   - message: What went wrong.
    ///   - sql: The statement that failed, if any.
    public init(code: Code, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// `SQLSTATE 23505: duplicate key … in "INSERT …"`.
    public var description: String {
        var text = "SQLSTATE \(code.rawValue): \(message)"
        if let sql { text += " in \"\(sql)\"" }
        return text
    }

    /// Whether running the whole transaction again may succeed (serialization failure or deadlock).
    public var isTransient: Bool { code == .serializationFailure || code == .deadlockDetected }

    /// Whether the connection itself failed (SQLSTATE class 08, or libpq lost the connection).
    public var isConnectionFailure: Bool { code.rawValue.hasPrefix("08") || code == .connectionLost }

    /// A SQLSTATE: five characters, an open set (unknown codes are kept as they are).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The five-character SQLSTATE.
        public var rawValue: String

        /// Creates a code from its SQLSTATE.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The SQLSTATE.
        public var description: String { rawValue }

        /// `23505`: a unique index or primary key refused a duplicate.
        public static let uniqueViolation = Code(rawValue: "23505")
        /// `40001`: the transaction could not be serialized; run it again.
        public static let serializationFailure = Code(rawValue: "40001")
        /// `40P01`: a deadlock was detected and this transaction was chosen to fail; run it again.
        public static let deadlockDetected = Code(rawValue: "40P01")
        /// `42P01`: the table does not exist.
        public static let undefinedTable = Code(rawValue: "42P01")
        /// `08006`: the connection failed.
        public static let connectionFailure = Code(rawValue: "08006")
        /// `08001`: the client could not establish the connection.
        public static let unableToConnect = Code(rawValue: "08001")
        /// Not a SQLSTATE: libpq reported a failure without one (the connection was lost, usually).
        public static let connectionLost = Code(rawValue: "XX08L")
        /// `22P02`: a value did not parse as its type.
        public static let invalidTextRepresentation = Code(rawValue: "22P02")
        /// Not a SQLSTATE: a result column could not be read as the Swift type asked for.
        public static let decoding = Code(rawValue: "XXDEC")
        /// Not a SQLSTATE: the stored schema is newer than this program knows.
        public static let schemaTooNew = Code(rawValue: "XXNEW")
    }
}
