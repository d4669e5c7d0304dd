public import Foundation

/// A non-nil attribute value, tagged with its type.
///
/// The `Sendable` form of what ``ManagedObject/value(forKey:)`` returns, used where values
/// cross contexts (snapshots, change sets) and for default values in the model.
///
/// ```swift
/// AttributeDescription("title", .string, defaultValue: .string("Untitled"))
/// ```
public enum AttributeValue: Sendable, Hashable, CustomStringConvertible {
    /// A ``AttributeType/string`` value.
    case string(String)
    /// An ``AttributeType/integer16`` value.
    case integer16(Int16)
    /// An ``AttributeType/integer32`` value.
    case integer32(Int32)
    /// An ``AttributeType/integer64`` value.
    case integer64(Int64)
    /// A ``AttributeType/double`` value.
    case double(Double)
    /// A ``AttributeType/decimal`` value.
    case decimal(Decimal)
    /// A ``AttributeType/boolean`` value.
    case boolean(Bool)
    /// A ``AttributeType/date`` value.
    case date(Date)
    /// A ``AttributeType/binaryData`` value.
    case binaryData(Data)
    /// A ``AttributeType/uuid`` value.
    case uuid(UUID)
    /// A ``AttributeType/uri`` value.
    case uri(URL)

    /// The type of the value.
    public var type: AttributeType {
        switch self {
        case .string: .string
        case .integer16: .integer16
        case .integer32: .integer32
        case .integer64: .integer64
        case .double: .double
        case .decimal: .decimal
        case .boolean: .boolean
        case .date: .date
        case .binaryData: .binaryData
        case .uuid: .uuid
        case .uri: .uri
        }
    }

    /// The plain Swift value: a `String`, `Int16`, `Int32`, `Int64`, `Double`, `Decimal`, `Bool`, `Date`, `Data`, `UUID` or `URL`.
    public var swiftValue: any Sendable {
        switch self {
        case .string(let value): value
        case .integer16(let value): value
        case .integer32(let value): value
        case .integer64(let value): value
        case .double(let value): value
        case .decimal(let value): value
        case .boolean(let value): value
        case .date(let value): value
        case .binaryData(let value): value
        case .uuid(let value): value
        case .uri(let value): value
        }
    }

    /// The value in a readable form, for messages.
    public var description: String {
        switch self {
        case .string(let value): "\"\(value)\""
        case .binaryData(let value): "<\(value.count) bytes>"
        default: "\(swiftValue)"
        }
    }

    /// Converts a plain Swift value to a value of `type`, or returns `nil` if it does not fit.
    ///
    /// Integers convert between widths when the value fits; `Int` is accepted for every
    /// integer type and `Float` for doubles, so `object.setValue(3, forKey: "count")` works.
    ///
    /// - Parameters:
    ///   - value: A Swift value (or an ``AttributeValue``).
    ///   - type: The attribute's type.
    public init?(converting value: Any, to type: AttributeType) {
        // The plain Swift type is the common case: try it before the tagged form.
        if let plain = Self.plain(value, type) {
            self = plain
            return
        }
        guard let tagged = value as? AttributeValue, let converted = tagged.converted(to: type) else { return nil }
        self = converted
    }

    /// `value` as an attribute value of `type`, if it is of a Swift type that `type` takes.
    private static func plain(_ value: Any, _ type: AttributeType) -> AttributeValue? {
        let result: AttributeValue
        switch type {
        case .string:
            guard let value = value as? String else { return nil }
            result = .string(value)
        case .integer16:
            guard let integer = Self.integer(value), let narrow = Int16(exactly: integer) else { return nil }
            result = .integer16(narrow)
        case .integer32:
            guard let integer = Self.integer(value), let narrow = Int32(exactly: integer) else { return nil }
            result = .integer32(narrow)
        case .integer64:
            guard let integer = Self.integer(value) else { return nil }
            result = .integer64(integer)
        case .double:
            if let value = value as? Double {
                result = .double(value)
            } else if let value = value as? Float {
                result = .double(Double(value))
            } else {
                return nil
            }
        case .decimal:
            guard let value = value as? Decimal else { return nil }
            result = .decimal(value)
        case .boolean:
            guard let value = value as? Bool else { return nil }
            result = .boolean(value)
        case .date:
            guard let value = value as? Date else { return nil }
            result = .date(value)
        case .binaryData:
            guard let value = value as? Data else { return nil }
            result = .binaryData(value)
        case .uuid:
            guard let value = value as? UUID else { return nil }
            result = .uuid(value)
        case .uri:
            guard let value = value as? URL else { return nil }
            result = .uri(value)
        }
        return result
    }

    /// The same value as another type, when it is an integer that fits or already the right type.
    func converted(to type: AttributeType) -> AttributeValue? {
        if self.type == type { return self }
        guard let integer = integerValue else { return nil }
        switch type {
        case .integer16: return Int16(exactly: integer).map(AttributeValue.integer16)
        case .integer32: return Int32(exactly: integer).map(AttributeValue.integer32)
        case .integer64: return .integer64(integer)
        default: return nil
        }
    }

    /// The value of an integer of any width.
    var integerValue: Int64? {
        switch self {
        case .integer16(let value): Int64(value)
        case .integer32(let value): Int64(value)
        case .integer64(let value): value
        default: nil
        }
    }

    private static func integer(_ value: Any) -> Int64? {
        switch value {
        case let value as Int: Int64(value)
        case let value as Int64: value
        case let value as Int32: Int64(value)
        case let value as Int16: Int64(value)
        case let value as Int8: Int64(value)
        case let value as UInt8: Int64(value)
        case let value as UInt16: Int64(value)
        case let value as UInt32: Int64(value)
        case let value as UInt: Int64(exactly: value)
        case let value as UInt64: Int64(exactly: value)
        default: nil
        }
    }
}
