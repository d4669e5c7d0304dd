public import Foundation

/// A Swift type that can be bound to a statement parameter and read from a column.
///
/// The standard conformances and their storage:
///
/// | Swift type | Stored as | Read from |
/// |---|---|---|
/// | `Int64`, `Int`, `Int32` | `INTEGER` | `INTEGER`; `REAL` holding an exact integer in range |
/// | `Double` | `REAL` | `REAL`, `INTEGER` |
/// | `Bool` | `INTEGER` 0 or 1 | `INTEGER` (non-zero is `true`) |
/// | `String` | `TEXT` | `TEXT` |
/// | `Data`, `[UInt8]` | `BLOB` (empty stays an empty blob, not `NULL`) | `BLOB`, `TEXT` (its UTF-8 bytes) |
/// | `UUID` | 16-byte `BLOB` | 16-byte `BLOB`, or `TEXT` in the canonical `8-4-4-4-12` form |
/// | `Date` | `REAL` seconds since 1970-01-01 00:00:00 UTC (Unix time) | `REAL`, `INTEGER` |
/// | `Optional` | `NULL` for `nil` | `NULL` is `nil` |
/// | ``SQLiteValue`` | as is | anything |
///
/// `Date` is stored as Unix time so that it sorts, compares and indexes as a number,
/// converts in SQL with `datetime(column, 'unixepoch')`, and keeps sub-microsecond
/// precision for present-day dates.
///
/// Conform your own types by converting to and from ``SQLiteValue``:
///
/// ```swift
/// import StratusWire
///
/// extension ChangeTag: SQLiteValueConvertible {
///     public var sqliteValue: SQLiteValue { .text(rawValue) }
///     public init?(sqliteValue: SQLiteValue) {
///         guard case .text(let text) = sqliteValue else { return nil }
///         self.init(rawValue: text)
///     }
/// }
/// ```
public protocol SQLiteValueConvertible {
    /// The value to bind.
    var sqliteValue: SQLiteValue { get }

    /// Converts a stored value, or returns `nil` if it cannot represent `Self`.
    ///
    /// - Parameter sqliteValue: The value read from a column.
    init?(sqliteValue: SQLiteValue)
}

extension SQLiteValue: SQLiteValueConvertible {
    /// The value itself.
    public var sqliteValue: SQLiteValue { self }

    /// Wraps any stored value.
    ///
    /// - Parameter sqliteValue: The value read from a column.
    public init?(sqliteValue: SQLiteValue) { self = sqliteValue }
}

extension Int64: SQLiteValueConvertible {
    /// An ``SQLiteValue/integer(_:)``.
    public var sqliteValue: SQLiteValue { .integer(self) }

    /// Reads an integer, or a real that holds an exact integer.
    ///
    /// - Parameter sqliteValue: The value read from a column.
    public init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .integer(let value): self = value
        case .real(let value):
            guard let exact = Int64(exactly: value) else { return nil }
            self = exact
        default: return nil
        }
    }
}

extension Int: SQLiteValueConvertible {
    /// An ``SQLiteValue/integer(_:)``.
    public var sqliteValue: SQLiteValue { .integer(Int64(self)) }

    /// Reads an integer that fits in `Int`.
    ///
    /// - Parameter sqliteValue: The value read from a column.
    public init?(sqliteValue: SQLiteValue) {
        guard let value = Int64(sqliteValue: sqliteValue), let exact = Int(exactly: value) else { return nil }
        self = exact
    }
}

extension Int32: SQLiteValueConvertible {
    /// An ``SQLiteValue/integer(_:)``.
    public var sqliteValue: SQLiteValue { .integer(Int64(self)) }

    /// Reads an integer that fits in `Int32`.
    ///
    /// - Parameter sqliteValue: The value read from a column.
    public init?(sqliteValue: SQLiteValue) {
        guard let value = Int64(sqliteValue: sqliteValue), let exact = Int32(exactly: value) else { return nil }
        self = exact
    }
}

extension Double: SQLiteValueConvertible {
    /// A ``SQLiteValue/real(_:)``.
    public var sqliteValue: SQLiteValue { .real(self) }

    /// Reads a real or an integer.
    ///
    /// - Parameter sqliteValue: The value read from a column.
    public init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}

extension Bool: SQLiteValueConvertible {
    /// ``SQLiteValue/integer(_:)`` 1 or 0.
    public var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }

    /// Reads an integer: zero is `false`, anything else `true`.
    ///
    /// - Parameter sqliteValue: The value read from a column.
    public init?(sqliteValue: SQLiteValue) {
        guard case .integer(let value) = sqliteValue else { return nil }
        self = value != 0
    }
}

extension String: SQLiteValueConvertible {
    /// A ``SQLiteValue/text(_:)``.
    public var sqliteValue: SQLiteValue { .text(self) }

    /// Reads text.
    ///
    /// - Parameter sqliteValue: The value read from a column.
    public init?(sqliteValue: SQLiteValue) {
        guard case .text(let value) = sqliteValue else { return nil }
        self = value
    }
}

extension Data: SQLiteValueConvertible {
    /// A ``SQLiteValue/blob(_:)``; an empty `Data` stays an empty blob.
    public var sqliteValue: SQLiteValue { .blob(self) }

    /// Reads a blob, or the UTF-8 bytes of text.
    ///
    /// - Parameter sqliteValue: The value read from a column.
    public init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .blob(let value): self = value
        case .text(let value): self = Data(value.utf8)
        default: return nil
        }
    }
}

extension Array: SQLiteValueConvertible where Element == UInt8 {
    /// A ``SQLiteValue/blob(_:)``.
    public var sqliteValue: SQLiteValue { .blob(Data(self)) }

    /// Reads a blob, or the UTF-8 bytes of text.
    ///
    /// - Parameter sqliteValue: The value read from a column.
    public init?(sqliteValue: SQLiteValue) {
        guard let data = Data(sqliteValue: sqliteValue) else { return nil }
        self = Array(data)
    }
}

extension UUID: SQLiteValueConvertible {
    /// A 16-byte ``SQLiteValue/blob(_:)``.
    public var sqliteValue: SQLiteValue {
        withUnsafeBytes(of: uuid) { .blob(Data($0)) }
    }

    /// Reads a 16-byte blob, or text in the canonical `8-4-4-4-12` form.
    ///
    /// - Parameter sqliteValue: The value read from a column.
    public init?(sqliteValue: SQLiteValue) {
        switch sqliteValue {
        case .blob(let data):
            guard data.count == 16 else { return nil }
            var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &bytes) { $0.copyBytes(from: data) }
            self.init(uuid: bytes)
        case .text(let text):
            guard let uuid = UUID(uuidString: text) else { return nil }
            self = uuid
        default:
            return nil
        }
    }
}

extension Date: SQLiteValueConvertible {
    /// A ``SQLiteValue/real(_:)``: seconds since 1970-01-01 00:00:00 UTC.
    public var sqliteValue: SQLiteValue { .real(timeIntervalSince1970) }

    /// Reads Unix time in seconds, as a real or an integer.
    ///
    /// - Parameter sqliteValue: The value read from a column.
    public init?(sqliteValue: SQLiteValue) {
        guard let seconds = Double(sqliteValue: sqliteValue) else { return nil }
        self.init(timeIntervalSince1970: seconds)
    }
}

extension Optional: SQLiteValueConvertible where Wrapped: SQLiteValueConvertible {
    /// `NULL` for `nil`, else the wrapped value's.
    public var sqliteValue: SQLiteValue {
        switch self {
        case .none: .null
        case .some(let value): value.sqliteValue
        }
    }

    /// Reads `NULL` as `nil`, anything else as the wrapped type.
    ///
    /// - Parameter sqliteValue: The value read from a column.
    public init?(sqliteValue: SQLiteValue) {
        if case .null = sqliteValue {
            self = .none
            return
        }
        guard let value = Wrapped(sqliteValue: sqliteValue) else { return nil }
        self = .some(value)
    }
}
