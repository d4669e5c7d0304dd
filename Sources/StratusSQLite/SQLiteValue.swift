public import Foundation

/// One SQLite value, in one of the five storage classes.
///
/// ```swift
/// let value: SQLiteValue = .text("Zoë")
/// try db.execute("INSERT INTO notes (body) VALUES (?)", [value])
/// let stored = try db.fetchOne("SELECT body FROM notes") { row in row.value(at: 0) }
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/datatype3.html>
public enum SQLiteValue: Sendable, Hashable, CustomStringConvertible {
    /// `NULL`.
    case null
    /// A 64-bit signed integer (`INTEGER`).
    case integer(Int64)
    /// An IEEE 754 double (`REAL`).
    case real(Double)
    /// UTF-8 text (`TEXT`).
    case text(String)
    /// Bytes (`BLOB`); an empty `Data` is an empty blob, distinct from ``null``.
    case blob(Data)

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The storage class name: `NULL`, `INTEGER`, `REAL`, `TEXT` or `BLOB`.
    public var storageClass: String {
        switch self {
        case .null: "NULL"
        case .integer: "INTEGER"
        case .real: "REAL"
        case .text: "TEXT"
        case .blob: "BLOB"
        }
    }

    /// An SQL-literal-like rendering: `NULL`, `42`, `1.5`, `'text'`, `X'0A0B'`.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'" + value.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let value): "X'" + value.map { byte in hexDigits(byte) }.joined() + "'"
        }
    }
}

private func hexDigits(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}

extension SQLiteValue: ExpressibleByNilLiteral {
    /// Creates ``null``.
    public init(nilLiteral: ()) { self = .null }
}

extension SQLiteValue: ExpressibleByIntegerLiteral {
    /// Creates an ``integer(_:)``.
    public init(integerLiteral value: Int64) { self = .integer(value) }
}

extension SQLiteValue: ExpressibleByFloatLiteral {
    /// Creates a ``real(_:)``.
    public init(floatLiteral value: Double) { self = .real(value) }
}

extension SQLiteValue: ExpressibleByStringLiteral {
    /// Creates a ``text(_:)``.
    public init(stringLiteral value: String) { self = .text(value) }
}
