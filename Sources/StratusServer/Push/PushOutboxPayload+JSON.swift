import Foundation
import StratusWire

// The outbox payload's JSON without `Codable`: a write encodes the before and after images of up
// to 200 records, and fan-out decodes them again, so the `Codable` path (a keyed container per
// image, stamp and field) cost a write more than its records' own inserts. The bytes are exactly
// those of `WireCoding.encode(payload)` (keys sorted, the fields by StratusWire's writer), so entries
// written by either path read back through either (PushOutboxPayloadJSONTests checks both ways).

extension PushOutboxPayload {
    /// The stored bytes: the reference encoding, written directly.
    func encoded() throws -> [UInt8] {
        var writer = JSONWriter(capacity: 512 * max(changes.count, 1))
        var first = true
        writer.writeByte(UInt8(ascii: "{"))
        writer.beginMember("changes", first: &first)
        writer.writeByte(UInt8(ascii: "["))
        for (offset, change) in changes.enumerated() {
            if offset > 0 { writer.writeByte(UInt8(ascii: ",")) }
            try change.write(to: &writer)
        }
        writer.writeByte(UInt8(ascii: "]"))
        if let skippedToken {
            writer.beginMember("skippedToken", first: &first)
            writer.writeString(skippedToken)
        }
        writer.beginMember("zoneRowID", first: &first)
        writer.writeInteger(zoneRowID)
        writer.writeByte(UInt8(ascii: "}"))
        return writer.output
    }

    /// Reads stored bytes: directly, or through `Codable` when the direct reader declines (the
    /// reference decoder then reports what is wrong).
    static func decode(_ bytes: [UInt8]) throws -> PushOutboxPayload {
        let data = Data(bytes)
        if let json = try? JSONValue(parsing: data), let payload = PushOutboxPayload(json: json) { return payload }
        return try WireCoding.decode(PushOutboxPayload.self, from: data)
    }

    /// The payload from its JSON, or `nil` where the `Codable` decoding might disagree (a missing
    /// or mistyped member, an unknown extra one is ignored as `Codable` ignores it).
    init?(json: JSONValue) {
        guard case .object(let members) = json, case .integer(let zoneRowID)? = members["zoneRowID"],
            case .array(let items)? = members["changes"], let skippedToken = Self.optionalString(members["skippedToken"])
        else { return nil }
        var changes: [Change] = []
        changes.reserveCapacity(items.count)
        for item in items {
            guard let change = Change(json: item) else { return nil }
            changes.append(change)
        }
        self.zoneRowID = zoneRowID
        self.skippedToken = skippedToken
        self.changes = changes
    }

    /// An optional string member: `.some(nil)` when absent or `null`, `nil` when not a string.
    fileprivate static func optionalString(_ json: JSONValue?) -> String?? {
        switch json {
        case nil, .null?: return .some(nil)
        case .string(let string)?: return .some(string)
        default: return nil
        }
    }
}

extension PushOutboxPayload.Change {
    fileprivate func write(to writer: inout JSONWriter) throws {
        var first = true
        writer.writeByte(UInt8(ascii: "{"))
        if let after {
            writer.beginMember("after", first: &first)
            try after.write(to: &writer)
        }
        if let before {
            writer.beginMember("before", first: &first)
            try before.write(to: &writer)
        }
        writer.beginMember("notificationID", first: &first)
        writer.writeString(notificationID)
        writer.writeByte(UInt8(ascii: "}"))
    }

    fileprivate init?(json: JSONValue) {
        guard case .object(let members) = json, case .string(let notificationID)? = members["notificationID"],
            let before = PushOutboxPayload.Image.optional(members["before"]), let after = PushOutboxPayload.Image.optional(members["after"])
        else { return nil }
        self.init(notificationID: notificationID, before: before, after: after)
    }
}

extension PushOutboxPayload.Image {
    fileprivate func write(to writer: inout JSONWriter) throws {
        var first = true
        writer.writeByte(UInt8(ascii: "{"))
        writer.beginMember("changeSequence", first: &first)
        writer.writeInteger(changeSequence)
        writer.beginMember("changeTag", first: &first)
        writer.writeString(changeTag)
        writer.beginMember("created", first: &first)
        created.write(to: &writer)
        writer.beginMember("fields", first: &first)
        try writer.writeFields(fields)
        writer.beginMember("modified", first: &first)
        modified.write(to: &writer)
        writer.beginMember("recordName", first: &first)
        writer.writeString(recordName)
        writer.beginMember("recordType", first: &first)
        writer.writeString(recordType)
        writer.writeByte(UInt8(ascii: "}"))
    }

    /// An optional image member: `.some(nil)` when absent or `null`, `nil` when unreadable.
    fileprivate static func optional(_ json: JSONValue?) -> Self?? {
        switch json {
        case nil, .null?: return .some(nil)
        case let json?: return Self(json: json).map { .some($0) }
        }
    }

    private init?(json: JSONValue) {
        guard case .object(let members) = json, case .string(let recordName)? = members["recordName"],
            case .string(let recordType)? = members["recordType"], case .string(let changeTag)? = members["changeTag"],
            case .integer(let changeSequence)? = members["changeSequence"], case .object(let stored)? = members["fields"],
            let created = PushOutboxPayload.Stamp(json: members["created"]), let modified = PushOutboxPayload.Stamp(json: members["modified"])
        else { return nil }
        var fields: [String: FieldValue] = [:]
        fields.reserveCapacity(stored.count)
        for (name, value) in stored {
            guard let field = try? FieldValue(json: value) else { return nil }
            fields[name] = field
        }
        self.recordName = recordName
        self.recordType = recordType
        self.changeTag = changeTag
        self.fields = fields
        self.created = created
        self.modified = modified
        self.changeSequence = changeSequence
    }
}

extension PushOutboxPayload.Stamp {
    fileprivate func write(to writer: inout JSONWriter) {
        var first = true
        writer.writeByte(UInt8(ascii: "{"))
        writer.beginMember("device", first: &first)
        writer.writeString(device)
        writer.beginMember("timestamp", first: &first)
        writer.writeInteger(timestamp)
        writer.beginMember("user", first: &first)
        writer.writeString(user)
        writer.writeByte(UInt8(ascii: "}"))
    }

    fileprivate init?(json: JSONValue?) {
        guard case .object(let members)? = json, case .string(let device)? = members["device"], case .integer(let timestamp)? = members["timestamp"],
            case .string(let user)? = members["user"]
        else { return nil }
        self.timestamp = timestamp
        self.user = user
        self.device = device
    }
}
