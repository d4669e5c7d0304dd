import Foundation
import StratusStore

/// Converts attribute values to the sync framework's shapes and back.
enum AttributeConversion {
    /// The value the sync framework reads: integers as `Int`, decimals, UUIDs and URLs as `String`.
    static func syncValue(_ value: AttributeValue) -> any Sendable {
        switch value {
        case .string(let value): value
        case .integer16(let value): Int(value)
        case .integer32(let value): Int(value)
        case .integer64(let value): Int(value)
        case .double(let value): value
        case .decimal(let value): "\(value)"
        case .boolean(let value): value
        case .date(let value): value
        case .binaryData(let value): value
        case .uuid(let value): value.uuidString
        case .uri(let value): value.absoluteString
        }
    }

    /// The attribute value of a synced value, for an attribute of `type`; `nil` when the value is
    /// `nil`. Throws ``ConversionError`` for a value that does not fit.
    static func attributeValue(_ value: Any?, type: AttributeType) throws(ConversionError) -> AttributeValue? {
        guard let value else { return nil }
        if let plain = AttributeValue(converting: value, to: type) { return plain }
        let converted: AttributeValue? =
            switch type {
            case .string: .string("\(value)")
            case .integer16, .integer32, .integer64: integer(value).flatMap { AttributeValue(converting: $0, to: type) }
            case .double: (value as? Int).map { .double(Double($0)) } ?? (value as? Int64).map { .double(Double($0)) }
            case .decimal: decimal(value).map { .decimal($0) }
            case .boolean: integer(value).map { .boolean($0 != 0) }
            case .date: (value as? Double).map { .date(Date(timeIntervalSince1970: $0)) }
            case .binaryData: (value as? String).map { .binaryData(Data($0.utf8)) }
            case .uuid: (value as? String).flatMap(UUID.init(uuidString:)).map { .uuid($0) }
            case .uri: (value as? String).flatMap { URL(string: $0) }.map { .uri($0) }
            }
        guard let converted else { throw ConversionError(value: "\(value)", valueType: "\(Swift.type(of: value))", type: type) }
        return converted
    }

    private static func integer(_ value: Any) -> Int64? {
        switch value {
        case let value as Int: Int64(value)
        case let value as Int64: value
        case let value as Bool: value ? 1 : 0
        case let value as Double: Int64(exactly: value)
        default: nil
        }
    }

    private static func decimal(_ value: Any) -> Decimal? {
        switch value {
        case let value as String: Decimal(string: value, locale: Locale(identifier: "en_US_POSIX"))
        case let value as Double: Decimal(value)
        case let value as Int: Decimal(value)
        case let value as Int64: Decimal(value)
        default: nil
        }
    }
}

/// A synced value that does not fit the attribute it is meant for.
struct ConversionError: Error, CustomStringConvertible {
    var value: String
    var valueType: String
    var type: AttributeType

    var description: String { "a \(valueType) value (\(value)) does not fit an attribute of type \(type)" }
}
