import Foundation

// Direct (Codable-free) JSON for field values and the dictionaries they hold. `encode(to:)` and
// `init(from:)` stay the reference; these write and read the same JSON (see JSONDirectCoding.swift).

extension FieldValue: JSONDirectEncodable {
    func writeJSON(to writer: inout JSONWriter) throws(WireError) {
        writer.writeRaw(#"{"type":""#)
        writer.writeRaw(type.staticRawValue)
        writer.writeRaw(#"","value":"#)
        let asStrings = writer.numbersAsStrings
        switch self {
        case .string(let value): writer.writeString(value)
        case .int64(let value):
            if asStrings { writer.writeIntegerString(value) } else { writer.writeInteger(value) }
        case .double(let value):
            if asStrings { writer.writeString(value.description) } else { try writer.writeDouble(value) }
        case .timestamp(let value):
            if asStrings {
                writer.writeIntegerString(value.millisecondsSince1970)
            } else {
                writer.writeInteger(value.millisecondsSince1970)
            }
        case .bytes(let value): writer.writeString(value.base64EncodedString())
        case .reference(let value): value.writeJSON(to: &writer)
        case .asset(let value): value.writeJSON(to: &writer)
        case .location(let value): try value.writeJSON(to: &writer)
        case .stringList(let values): writer.writeStrings(values)
        case .int64List(let values):
            writer.writeByte(UInt8(ascii: "["))
            for (offset, value) in values.enumerated() {
                if offset > 0 { writer.writeByte(UInt8(ascii: ",")) }
                if asStrings { writer.writeIntegerString(value) } else { writer.writeInteger(value) }
            }
            writer.writeByte(UInt8(ascii: "]"))
        case .doubleList(let values):
            writer.writeByte(UInt8(ascii: "["))
            for (offset, value) in values.enumerated() {
                if offset > 0 { writer.writeByte(UInt8(ascii: ",")) }
                if asStrings { writer.writeString(value.description) } else { try writer.writeDouble(value) }
            }
            writer.writeByte(UInt8(ascii: "]"))
        case .timestampList(let values):
            writer.writeByte(UInt8(ascii: "["))
            for (offset, value) in values.enumerated() {
                if offset > 0 { writer.writeByte(UInt8(ascii: ",")) }
                if asStrings {
                    writer.writeIntegerString(value.millisecondsSince1970)
                } else {
                    writer.writeInteger(value.millisecondsSince1970)
                }
            }
            writer.writeByte(UInt8(ascii: "]"))
        case .bytesList(let values): writer.writeStrings(values.map { $0.base64EncodedString() })
        case .referenceList(let values): try writer.writeArray(values)
        case .assetList(let values): try writer.writeArray(values)
        case .locationList(let values): try writer.writeArray(values)
        case .emptyList: writer.writeRaw("[]")
        }
        writer.writeByte(UInt8(ascii: "}"))
    }

    /// Reads a field value dictionary exactly as ``init(json:expecting:codingPath:)`` does, without
    /// building coding paths (they only matter for errors, which the reference decoder reports).
    init(directJSON json: JSONValue, expecting expected: FieldType?) throws(WireError) {
        guard case .object(let members) = json else { throw JSONDirectDecoding.declined }
        var value: JSONValue?
        var tag: FieldType?
        for (key, member) in members {
            switch key {
            case "value": value = member
            case "type":
                switch member {
                case .null: tag = nil
                case .string(let name):
                    guard let type = FieldType(rawValue: name) else { throw JSONDirectDecoding.declined }
                    tag = type
                default: throw JSONDirectDecoding.declined
                }
            default: break
            }
        }
        guard let value else { throw JSONDirectDecoding.declined }
        try self.init(value: value, type: tag, expecting: expected, codingPath: [])
    }
}

extension FieldType {
    /// The wire tag as a static string: the one spelling of every tag (``rawValue`` reads it), and
    /// what the direct writer copies without allocating.
    var staticRawValue: StaticString {
        switch self {
        case .string: "STRING"
        case .int64: "INT64"
        case .double: "DOUBLE"
        case .timestamp: "TIMESTAMP"
        case .bytes: "BYTES"
        case .reference: "REFERENCE"
        case .asset: "ASSETID"
        case .location: "LOCATION"
        case .stringList: "STRING_LIST"
        case .int64List: "INT64_LIST"
        case .doubleList: "DOUBLE_LIST"
        case .timestampList: "TIMESTAMP_LIST"
        case .bytesList: "BYTES_LIST"
        case .referenceList: "REFERENCE_LIST"
        case .assetList: "ASSETID_LIST"
        case .locationList: "LOCATION_LIST"
        case .unknownList: "UNKNOWN_LIST"
        }
    }
}

extension Reference: JSONDirectEncodable, JSONDirectDecodable {
    func writeJSON(to writer: inout JSONWriter) {
        var first = true
        writer.writeByte(UInt8(ascii: "{"))
        if let action {
            writer.beginMember("action", first: &first)
            writer.writeString(action.rawValue)
        }
        writer.beginMember("recordName", first: &first)
        writer.writeString(recordName)
        if let zoneID {
            writer.beginMember("zoneID", first: &first)
            zoneID.writeJSON(to: &writer)
        }
        writer.writeByte(UInt8(ascii: "}"))
    }

    init(directJSON json: JSONValue, context: JSONDirectDecoding) throws(WireError) {
        guard case .object(let members) = json else { throw JSONDirectDecoding.declined }
        var recordName: String?
        var zoneID: ZoneID?
        var action: ReferenceAction?
        for (key, member) in members {
            switch key {
            case "recordName": recordName = try context.string(member)
            case "zoneID": zoneID = try context.optional(ZoneID.self, member)
            case "action": action = try context.optionalString(member).map(ReferenceAction.init(rawValue:))
            default: break
            }
        }
        guard let recordName else { throw JSONDirectDecoding.declined }
        self.init(recordName: recordName, zoneID: zoneID, action: action)
    }
}

extension ZoneID: JSONDirectEncodable, JSONDirectDecodable {
    func writeJSON(to writer: inout JSONWriter) {
        var first = true
        writer.writeByte(UInt8(ascii: "{"))
        if let ownerRecordName {
            writer.beginMember("ownerRecordName", first: &first)
            writer.writeString(ownerRecordName)
        }
        writer.beginMember("zoneName", first: &first)
        writer.writeString(zoneName)
        if let zoneType {
            writer.beginMember("zoneType", first: &first)
            writer.writeString(zoneType)
        }
        writer.writeByte(UInt8(ascii: "}"))
    }

    init(directJSON json: JSONValue, context: JSONDirectDecoding) throws(WireError) {
        guard case .object(let members) = json else { throw JSONDirectDecoding.declined }
        var zoneName: String?
        var ownerRecordName: String?
        var zoneType: String?
        for (key, member) in members {
            switch key {
            case "zoneName": zoneName = try context.string(member)
            case "ownerRecordName": ownerRecordName = try context.optionalString(member)
            case "zoneType": zoneType = try context.optionalString(member)
            default: break
            }
        }
        guard let zoneName else { throw JSONDirectDecoding.declined }
        self.init(zoneName: zoneName, ownerRecordName: ownerRecordName, zoneType: zoneType)
    }
}

extension Asset: JSONDirectEncodable {
    func writeJSON(to writer: inout JSONWriter) {
        var first = true
        writer.writeByte(UInt8(ascii: "{"))
        if let downloadURL {
            writer.beginMember("downloadURL", first: &first)
            writer.writeString(downloadURL)
        }
        if let fileChecksum {
            writer.beginMember("fileChecksum", first: &first)
            writer.writeString(fileChecksum)
        }
        if let receipt {
            writer.beginMember("receipt", first: &first)
            writer.writeString(receipt)
        }
        if let referenceChecksum {
            writer.beginMember("referenceChecksum", first: &first)
            writer.writeString(referenceChecksum)
        }
        if let size {
            writer.beginMember("size", first: &first)
            writer.writeInteger(size)
        }
        if let wrappingKey {
            writer.beginMember("wrappingKey", first: &first)
            writer.writeString(wrappingKey)
        }
        writer.writeByte(UInt8(ascii: "}"))
    }
}

extension Location: JSONDirectEncodable {
    func writeJSON(to writer: inout JSONWriter) throws(WireError) {
        var first = true
        writer.writeByte(UInt8(ascii: "{"))
        try Self.write("altitude", altitude, to: &writer, first: &first)
        try Self.write("course", course, to: &writer, first: &first)
        try Self.write("horizontalAccuracy", horizontalAccuracy, to: &writer, first: &first)
        try Self.write("latitude", latitude, to: &writer, first: &first)
        try Self.write("longitude", longitude, to: &writer, first: &first)
        try Self.write("speed", speed, to: &writer, first: &first)
        if let timestamp {
            writer.beginMember("timestamp", first: &first)
            writer.writeInteger(timestamp.millisecondsSince1970)
        }
        try Self.write("verticalAccuracy", verticalAccuracy, to: &writer, first: &first)
        writer.writeByte(UInt8(ascii: "}"))
    }

    private static func write(
        _ key: StaticString, _ value: Double?, to writer: inout JSONWriter, first: inout Bool
    ) throws(WireError) {
        guard let value else { return }
        writer.beginMember(key, first: &first)
        try writer.writeDouble(value)
    }
}

extension JSONWriter {
    /// Writes a record's `fields` dictionary as ``WireCoding/encode(_:numbersAsStrings:prettyPrinted:)`` does.
    package mutating func writeFields(_ fields: [String: FieldValue]) throws(WireError) {
        try fields.writeJSON(to: &self)
    }
}

extension Dictionary: JSONDirectEncodable where Key == String, Value == FieldValue {
    /// A record's `fields` dictionary (also the store's field blob), names in the tree writer's order.
    func writeJSON(to writer: inout JSONWriter) throws(WireError) {
        writer.writeByte(UInt8(ascii: "{"))
        for (offset, field) in sorted(by: { $0.key < $1.key }).enumerated() {
            if offset > 0 { writer.writeByte(UInt8(ascii: ",")) }
            writer.writeString(field.key)
            writer.writeByte(UInt8(ascii: ":"))
            try field.value.writeJSON(to: &writer)
        }
        writer.writeByte(UInt8(ascii: "}"))
    }
}
