import Foundation
import StratusClient
import StratusWire

/// Converts local property values to record field values and back.
enum FieldConversion {
    /// The field value of a local value; `nil` for `nil` or a value no record field can hold.
    static func fieldValue(of value: Any?) -> FieldValue? {
        guard let value else { return nil }
        if let value = value as? FieldValue { return value }
        if let value = value as? any RecordValue { return value.fieldValue }
        if let value = value as? Float { return .double(Double(value)) }
        if let value = value as? Int32 { return .int64(Int64(value)) }
        return nil
    }

    /// The local value of a field value, shaped like `hint` (the property's current value) when possible.
    static func localValue(of field: FieldValue?, like hint: Any?) -> (any Sendable)? {
        guard let field else { return nil }
        switch hint {
        case is Bool: return Bool(fieldValue: field) ?? natural(field)
        case is Int64: return Int64(fieldValue: field) ?? natural(field)
        case is Int32: return Int64(fieldValue: field).flatMap { Int32(exactly: $0) } ?? natural(field)
        case is Float: return Double(fieldValue: field).map { Float($0) } ?? natural(field)
        case is FieldValue: return field
        case is [String]: return [String](fieldValue: field) ?? natural(field)
        case is [Int]: return [Int](fieldValue: field) ?? natural(field)
        case is [Double]: return [Double](fieldValue: field) ?? natural(field)
        case is [Date]: return [Date](fieldValue: field) ?? natural(field)
        default: return natural(field)
        }
    }

    /// The plain Swift value of a field value.
    static func natural(_ field: FieldValue) -> any Sendable {
        switch field {
        case .string(let value): value
        case .int64(let value): Int(exactly: value).map { $0 as any Sendable } ?? value
        case .double(let value): value
        case .timestamp(let value): value.date
        case .bytes(let value): value
        case .reference(let value): value
        case .asset(let value): value
        case .location(let value): value
        case .stringList(let value): value
        case .int64List(let value): value.map { Int(truncatingIfNeeded: $0) }
        case .doubleList(let value): value
        case .timestampList(let value): value.map(\.date)
        case .bytesList(let value): value
        case .referenceList(let value): value
        case .assetList(let value): value
        case .locationList(let value): value
        case .emptyList: [any Sendable]()
        }
    }
}
