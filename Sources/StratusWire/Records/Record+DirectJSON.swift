// Direct (Codable-free) JSON for records. `Record.encode(to:)` and `Record.init(from:)` stay the
// reference; these write and read the same JSON (see JSONDirectCoding.swift).

extension Record: JSONDirectEncodable, JSONDirectDecodable {
    func writeJSON(to writer: inout JSONWriter) throws(WireError) {
        var first = true
        writer.writeByte(UInt8(ascii: "{"))
        if let createShortGUID {
            writer.beginMember("createShortGUID", first: &first)
            writer.writeBool(createShortGUID)
        }
        if let created {
            writer.beginMember("created", first: &first)
            created.writeJSON(to: &writer)
        }
        if let currentUserParticipant {
            writer.beginMember("currentUserParticipant", first: &first)
            try writer.writeEncodable(currentUserParticipant)
        }
        if let deleted {
            writer.beginMember("deleted", first: &first)
            writer.writeBool(deleted)
        }
        if let fields {
            writer.beginMember("fields", first: &first)
            try fields.writeJSON(to: &writer)
        }
        if let forRecord {
            writer.beginMember("forRecord", first: &first)
            forRecord.writeJSON(to: &writer)
        }
        if let modified {
            writer.beginMember("modified", first: &first)
            modified.writeJSON(to: &writer)
        }
        if let owner {
            writer.beginMember("owner", first: &first)
            try writer.writeEncodable(owner)
        }
        if let parent {
            writer.beginMember("parent", first: &first)
            parent.writeJSON(to: &writer)
        }
        if let participants {
            writer.beginMember("participants", first: &first)
            try writer.writeEncodable(participants)
        }
        if let publicPermission {
            writer.beginMember("publicPermission", first: &first)
            writer.writeString(publicPermission.rawValue)
        }
        if let recordChangeTag {
            writer.beginMember("recordChangeTag", first: &first)
            writer.writeString(recordChangeTag.rawValue)
        }
        if let recordName {
            writer.beginMember("recordName", first: &first)
            writer.writeString(recordName)
        }
        if let recordType {
            writer.beginMember("recordType", first: &first)
            writer.writeString(recordType)
        }
        if let share {
            writer.beginMember("share", first: &first)
            share.writeJSON(to: &writer)
        }
        if let shortGUID {
            writer.beginMember("shortGUID", first: &first)
            writer.writeString(shortGUID)
        }
        if let zoneID {
            writer.beginMember("zoneID", first: &first)
            zoneID.writeJSON(to: &writer)
        }
        writer.writeByte(UInt8(ascii: "}"))
    }

    init(directJSON json: JSONValue, context: JSONDirectDecoding) throws(WireError) {
        guard case .object(let members) = json else { throw JSONDirectDecoding.declined }
        self.init()
        var fieldsJSON: [String: JSONValue]?
        for (key, member) in members {
            switch key {
            case "recordName": recordName = try context.optionalString(member)
            case "recordType": recordType = try context.optionalString(member)
            case "recordChangeTag": recordChangeTag = try context.optionalString(member).map(ChangeTag.init(rawValue:))
            case "fields":
                switch member {
                case .null: fieldsJSON = nil
                case .object(let fields): fieldsJSON = fields
                default: throw JSONDirectDecoding.declined
                }
            case "created": created = try context.optional(RecordTimestamp.self, member)
            case "modified": modified = try context.optional(RecordTimestamp.self, member)
            case "deleted": deleted = try context.optionalBool(member)
            case "createShortGUID": createShortGUID = try context.optionalBool(member)
            case "shortGUID": shortGUID = try context.optionalString(member)
            case "parent": parent = try context.optional(Reference.self, member)
            case "share": share = try context.optional(Reference.self, member)
            case "forRecord": forRecord = try context.optional(ShareRoot.self, member)
            case "publicPermission": publicPermission = try context.optionalString(member).map(SharePermission.init(rawValue:))
            case "participants": participants = try context.optionalCodable([ShareParticipant].self, member)
            case "owner": owner = try context.optionalCodable(ShareParticipant.self, member)
            case "currentUserParticipant": currentUserParticipant = try context.optionalCodable(ShareParticipant.self, member)
            case "zoneID": zoneID = try context.optional(ZoneID.self, member)
            default: break
            }
        }
        // NB: after the loop, because the schema type of a field depends on `recordType`.
        guard let fieldsJSON else { return }
        var fields: [String: FieldValue] = [:]
        fields.reserveCapacity(fieldsJSON.count)
        for (name, field) in fieldsJSON {
            let expected = context.fieldTypes?(recordType: recordType, fieldName: name)
            fields[name] = try FieldValue(directJSON: field, expecting: expected)
        }
        self.fields = fields
    }
}

extension RecordTimestamp: JSONDirectEncodable, JSONDirectDecodable {
    func writeJSON(to writer: inout JSONWriter) {
        var first = true
        writer.writeByte(UInt8(ascii: "{"))
        if let deviceID {
            writer.beginMember("deviceID", first: &first)
            writer.writeString(deviceID)
        }
        writer.beginMember("timestamp", first: &first)
        writer.writeInteger(timestamp.millisecondsSince1970)
        if let userRecordName {
            writer.beginMember("userRecordName", first: &first)
            writer.writeString(userRecordName)
        }
        writer.writeByte(UInt8(ascii: "}"))
    }

    init(directJSON json: JSONValue, context: JSONDirectDecoding) throws(WireError) {
        guard case .object(let members) = json else { throw JSONDirectDecoding.declined }
        var timestamp: Timestamp?
        var userRecordName: String?
        var deviceID: String?
        for (key, member) in members {
            switch key {
            case "timestamp": timestamp = try Timestamp(json: member, allowStrings: false, codingPath: [])
            case "userRecordName": userRecordName = try context.optionalString(member)
            case "deviceID": deviceID = try context.optionalString(member)
            default: break
            }
        }
        guard let timestamp else { throw JSONDirectDecoding.declined }
        self.init(timestamp: timestamp, userRecordName: userRecordName, deviceID: deviceID)
    }
}

extension ShareRoot: JSONDirectEncodable, JSONDirectDecodable {
    func writeJSON(to writer: inout JSONWriter) {
        var first = true
        writer.writeByte(UInt8(ascii: "{"))
        if let recordChangeTag {
            writer.beginMember("recordChangeTag", first: &first)
            writer.writeString(recordChangeTag.rawValue)
        }
        writer.beginMember("recordName", first: &first)
        writer.writeString(recordName)
        writer.writeByte(UInt8(ascii: "}"))
    }

    init(directJSON json: JSONValue, context: JSONDirectDecoding) throws(WireError) {
        guard case .object(let members) = json else { throw JSONDirectDecoding.declined }
        var recordName: String?
        var recordChangeTag: ChangeTag?
        for (key, member) in members {
            switch key {
            case "recordName": recordName = try context.string(member)
            case "recordChangeTag": recordChangeTag = try context.optionalString(member).map(ChangeTag.init(rawValue:))
            default: break
            }
        }
        guard let recordName else { throw JSONDirectDecoding.declined }
        self.init(recordName: recordName, recordChangeTag: recordChangeTag)
    }
}
