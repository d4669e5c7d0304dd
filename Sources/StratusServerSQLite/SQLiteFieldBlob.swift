import Foundation
import StratusWire

/// The `records.fields` blob: the record's fields as canonical wire JSON, `{"name":{"type":…,"value":…},…}`.
///
/// Written by `WireCoding.encode`, whose direct writer handles a fields dictionary without `Codable`,
/// and read back by the same rules as `WireCoding.decode`, without the `Codable` machinery: parsed
/// into a ``JSONValue`` tree and read with `FieldValue(json:)`. The Codable path cost about
/// 10 µs per ~200-byte record each way, as much as all of the SQLite work of a write.
enum SQLiteFieldBlob {
    static func encode(_ fields: [String: FieldValue]) throws -> Data {
        // NB: `WireCoding.encode` writes a fields dictionary with StratusWire's direct writer.
        try WireCoding.encode(fields)
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
}
