public import Foundation

/// A value bound to a statement parameter, independent of the database.
///
/// Each driver converts it to its own form: SQLite stores ``bool(_:)`` as the integer 0 or 1
/// and PostgreSQL sends `t` or `f`; ``blob(_:)`` is a SQLite `BLOB` and a PostgreSQL `bytea`.
public enum SQLValue: Sendable, Hashable {
    /// `NULL`.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// A double.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes.
    case blob(Data)
    /// A Boolean (`BOOLEAN` on PostgreSQL, an integer on SQLite).
    case bool(Bool)
}

/// A Swift value that binds to a statement parameter through ``SQL`` interpolation.
///
/// ```swift
/// let name = "_alice"
/// let sql: SQL = "UPDATE users SET discoverable = \(true) WHERE record_name = \(name)"
/// ```
public protocol SQLBindable {
    /// The value to bind.
    var sqlValue: SQLValue { get }
}

extension SQLValue: SQLBindable {
    /// The value itself.
    public var sqlValue: SQLValue { self }
}

extension Int64: SQLBindable {
    /// ``SQLValue/integer(_:)``.
    public var sqlValue: SQLValue { .integer(self) }
}

extension Int: SQLBindable {
    /// ``SQLValue/integer(_:)``.
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Double: SQLBindable {
    /// ``SQLValue/real(_:)``.
    public var sqlValue: SQLValue { .real(self) }
}

extension Bool: SQLBindable {
    /// ``SQLValue/bool(_:)``.
    public var sqlValue: SQLValue { .bool(self) }
}

extension String: SQLBindable {
    /// ``SQLValue/text(_:)``.
    public var sqlValue: SQLValue { .text(self) }
}

extension Data: SQLBindable {
    /// ``SQLValue/blob(_:)``.
    public var sqlValue: SQLValue { .blob(self) }
}

extension Array: SQLBindable where Element == UInt8 {
    /// ``SQLValue/blob(_:)``.
    public var sqlValue: SQLValue { .blob(Data(self)) }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    /// The wrapped value's, or ``SQLValue/null``.
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}
