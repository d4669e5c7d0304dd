/// The type of an attribute, and how it is stored in SQLite.
///
/// | Type | Swift value | SQLite storage |
/// |---|---|---|
/// | ``string`` | `String` | `TEXT` |
/// | ``integer16``, ``integer32``, ``integer64`` | `Int16`, `Int32`, `Int64` | `INTEGER` |
/// | ``double`` | `Double` | `REAL` |
/// | ``decimal`` | `Decimal` | `TEXT` (exact; ordering is evaluated in memory) |
/// | ``boolean`` | `Bool` | `INTEGER` 0 or 1 |
/// | ``date`` | `Date` | `REAL`, seconds since 1970 |
/// | ``binaryData`` | `Data` | `BLOB` |
/// | ``uuid`` | `UUID` | 16-byte `BLOB` |
/// | ``uri`` | `URL` | `TEXT`, the absolute string |
public enum AttributeType: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A Unicode string.
    case string
    /// A 16-bit signed integer.
    case integer16
    /// A 32-bit signed integer.
    case integer32
    /// A 64-bit signed integer.
    case integer64
    /// A 64-bit floating-point number.
    case double
    /// A base-10 decimal number, stored exactly.
    case decimal
    /// A Boolean.
    case boolean
    /// A point in time.
    case date
    /// Arbitrary bytes.
    case binaryData
    /// A UUID.
    case uuid
    /// A URL.
    case uri

    /// The type's name, as in model validation messages.
    public var description: String { rawValue }

    /// The SQLite column type used for attributes of this type.
    var sqlColumnType: String {
        switch self {
        case .string, .decimal, .uri: "TEXT"
        case .integer16, .integer32, .integer64, .boolean: "INTEGER"
        case .double, .date: "REAL"
        case .binaryData, .uuid: "BLOB"
        }
    }

    /// Whether SQLite orders and compares values of this type as Swift does, so comparisons compile to SQL.
    var isOrderedInSQL: Bool { self != .decimal }
}
