import Foundation
import StratusWire

/// The `records.fields` blob: the record's fields as canonical wire JSON, `{"name":{"type":…,"value":…},…}`.
///
/// Byte for byte what `WireCoding.encode([String: FieldValue])` writes, and read back by the same
/// rules as `WireCoding.decode`, but without the `Codable` machinery: values are turned into a
/// ``JSONValue`` tree directly (scalar types and their lists by hand, others through
/// `FieldValue.json()`) and read back with `FieldValue(json:)`. The Codable path cost about
/// 10 µs per ~200-byte record each way, as much as all of the SQLite work of a write.
enum SQLiteFieldBlob {
    static func encode(_ fields: [String: FieldValue]) throws -> Data {
        var members: [String: JSONValue] = [:]
        members.reserveCapacity(fields.count)
        for (name, value) in fields {
            members[name] = try json(value)
        }
        return try JSONValue.object(members).serialized()
    }

    static func decode(_ blob: Data) throws -> [String: FieldValue] {
        guard case .object(let members) = try JSONValue(parsing: blob) else {
            throw SQLiteStoreCorruption(message: "a records.fields blob is not a JSON object")
        }
        var fields: [String: FieldValue] = [:]
        fields.reserveCapacity(members.count)
        for (name, value) in members {
            fields[name] = try FieldValue(json: value)
        }
        return fields
    }

    /// `{"type": …, "value": …}` as `FieldValue.encode(to:)` writes it without `numbersAsStrings`.
    static func json(_ value: FieldValue) throws -> JSONValue {
        let payload: JSONValue
        switch value {
        case .string(let string): payload = .string(string)
        case .int64(let integer): payload = .integer(integer)
        case .double(let double): payload = .double(double)
        case .timestamp(let timestamp): payload = .integer(timestamp.millisecondsSince1970)
        case .stringList(let strings): payload = .array(strings.map(JSONValue.string))
        case .int64List(let integers): payload = .array(integers.map(JSONValue.integer))
        case .doubleList(let doubles): payload = .array(doubles.map(JSONValue.double))
        case .timestampList(let timestamps): payload = .array(timestamps.map { .integer($0.millisecondsSince1970) })
        default: return try value.json()
        }
        return .object(["type": .string(value.type.rawValue), "value": payload])
    }
}
