// Direct (Codable-free) JSON for record results, record operations and the records-bearing
// request and response bodies. The `Codable` conformances stay the reference; these write and
// read the same JSON (see JSONDirectCoding.swift).

extension RecordResult: JSONDirectEncodable, JSONDirectDecodable {
    func writeJSON(to writer: inout JSONWriter) throws(WireError) {
        switch self {
        case .record(let record): try record.writeJSON(to: &writer)
        case .error(let error): try error.writeJSON(to: &writer)
        }
    }

    init(directJSON json: JSONValue, context: JSONDirectDecoding) throws(WireError) {
        guard case .object(let members) = json else { throw JSONDirectDecoding.declined }
        if members["serverErrorCode"] != nil {
            guard let error = try context.optionalCodable(RecordFetchError.self, json) else { throw JSONDirectDecoding.declined }
            self = .error(error)
        } else {
            self = .record(try Record(directJSON: json, context: context))
        }
    }
}

extension RecordFetchError: JSONDirectEncodable {
    func writeJSON(to writer: inout JSONWriter) throws(WireError) {
        var first = true
        writer.writeByte(UInt8(ascii: "{"))
        if let reason {
            writer.beginMember("reason", first: &first)
            writer.writeString(reason)
        }
        if let recordName {
            writer.beginMember("recordName", first: &first)
            writer.writeString(recordName)
        }
        if let redirectURL {
            writer.beginMember("redirectURL", first: &first)
            writer.writeString(redirectURL)
        }
        if let retryAfter {
            writer.beginMember("retryAfter", first: &first)
            writer.writeInteger(Int64(retryAfter))
        }
        writer.beginMember("serverErrorCode", first: &first)
        writer.writeString(serverErrorCode.rawValue)
        if let serverRecord {
            writer.beginMember("serverRecord", first: &first)
            try serverRecord.writeJSON(to: &writer)
        }
        if let uuid {
            writer.beginMember("uuid", first: &first)
            writer.writeString(uuid)
        }
        writer.writeByte(UInt8(ascii: "}"))
    }
}

extension RecordOperation: JSONDirectEncodable, JSONDirectDecodable {
    func writeJSON(to writer: inout JSONWriter) throws(WireError) {
        var first = true
        writer.writeByte(UInt8(ascii: "{"))
        if let desiredKeys {
            writer.beginMember("desiredKeys", first: &first)
            writer.writeStrings(desiredKeys)
        }
        writer.beginMember("operationType", first: &first)
        writer.writeString(operationType.rawValue)
        writer.beginMember("record", first: &first)
        try record.writeJSON(to: &writer)
        writer.writeByte(UInt8(ascii: "}"))
    }

    init(directJSON json: JSONValue, context: JSONDirectDecoding) throws(WireError) {
        guard case .object(let members) = json else { throw JSONDirectDecoding.declined }
        var operationType: OperationType?
        var record: Record?
        var desiredKeys: [String]?
        for (key, member) in members {
            switch key {
            case "operationType":
                guard let type = OperationType(rawValue: try context.string(member)) else { throw JSONDirectDecoding.declined }
                operationType = type
            case "record": record = try Record(directJSON: member, context: context)
            case "desiredKeys": desiredKeys = try context.optionalStrings(member)
            default: break
            }
        }
        guard let operationType, let record else { throw JSONDirectDecoding.declined }
        try self.init(operationType: operationType, record: record, desiredKeys: desiredKeys)
    }
}

extension RecordsModify.Request: JSONDirectEncodable, JSONDirectDecodable {
    func writeJSON(to writer: inout JSONWriter) throws(WireError) {
        var first = true
        writer.writeByte(UInt8(ascii: "{"))
        if let atomic {
            writer.beginMember("atomic", first: &first)
            writer.writeBool(atomic)
        }
        if let desiredKeys {
            writer.beginMember("desiredKeys", first: &first)
            writer.writeStrings(desiredKeys)
        }
        if let numbersAsStrings {
            writer.beginMember("numbersAsStrings", first: &first)
            writer.writeBool(numbersAsStrings)
        }
        writer.beginMember("operations", first: &first)
        try writer.writeArray(operations)
        if let zoneID {
            writer.beginMember("zoneID", first: &first)
            zoneID.writeJSON(to: &writer)
        }
        writer.writeByte(UInt8(ascii: "}"))
    }

    init(directJSON json: JSONValue, context: JSONDirectDecoding) throws(WireError) {
        guard case .object(let members) = json else { throw JSONDirectDecoding.declined }
        var operations: [RecordOperation]?
        var zoneID: ZoneID?
        var atomic: Bool?
        var desiredKeys: [String]?
        var numbersAsStrings: Bool?
        for (key, member) in members {
            switch key {
            case "operations": operations = try Self.array(member, context)
            case "zoneID": zoneID = try context.optional(ZoneID.self, member)
            case "atomic": atomic = try context.optionalBool(member)
            case "desiredKeys": desiredKeys = try context.optionalStrings(member)
            case "numbersAsStrings": numbersAsStrings = try context.optionalBool(member)
            default: break
            }
        }
        guard let operations else { throw JSONDirectDecoding.declined }
        self.init(
            operations: operations, zoneID: zoneID, atomic: atomic, desiredKeys: desiredKeys,
            numbersAsStrings: numbersAsStrings)
    }
}

extension RecordsModify.Response: JSONDirectEncodable, JSONDirectDecodable {
    func writeJSON(to writer: inout JSONWriter) throws(WireError) {
        writer.writeRaw(#"{"records":"#)
        try writer.writeArray(records)
        writer.writeByte(UInt8(ascii: "}"))
    }

    init(directJSON json: JSONValue, context: JSONDirectDecoding) throws(WireError) {
        self.init(records: try Self.records(json, context))
    }
}

extension RecordsLookup.Response: JSONDirectEncodable, JSONDirectDecodable {
    func writeJSON(to writer: inout JSONWriter) throws(WireError) {
        writer.writeRaw(#"{"records":"#)
        try writer.writeArray(records)
        writer.writeByte(UInt8(ascii: "}"))
    }

    init(directJSON json: JSONValue, context: JSONDirectDecoding) throws(WireError) {
        self.init(records: try Self.records(json, context))
    }
}

extension RecordsQuery.Response: JSONDirectEncodable, JSONDirectDecodable {
    func writeJSON(to writer: inout JSONWriter) throws(WireError) {
        writer.writeByte(UInt8(ascii: "{"))
        if let continuationMarker {
            writer.writeRaw(#""continuationMarker":"#)
            writer.writeString(continuationMarker.rawValue)
            writer.writeByte(UInt8(ascii: ","))
        }
        writer.writeRaw(#""records":"#)
        try writer.writeArray(records)
        writer.writeByte(UInt8(ascii: "}"))
    }

    init(directJSON json: JSONValue, context: JSONDirectDecoding) throws(WireError) {
        let records = try Self.records(json, context)
        let marker = try json["continuationMarker"].map { json throws(WireError) in try context.optionalString(json) }
        self.init(records: records, continuationMarker: marker.flatMap { $0 }.map(ContinuationMarker.init(rawValue:)))
    }
}

extension RecordsChanges.Response: JSONDirectEncodable, JSONDirectDecodable {
    func writeJSON(to writer: inout JSONWriter) throws(WireError) {
        writer.writeRaw(#"{"moreComing":"#)
        writer.writeBool(moreComing)
        writer.writeRaw(#","records":"#)
        try writer.writeArray(records)
        if let reverse {
            writer.writeRaw(#","reverse":"#)
            writer.writeBool(reverse)
        }
        writer.writeRaw(#","syncToken":"#)
        writer.writeString(syncToken.rawValue)
        writer.writeByte(UInt8(ascii: "}"))
    }

    init(directJSON json: JSONValue, context: JSONDirectDecoding) throws(WireError) {
        let records = try Self.records(json, context)
        guard case .bool(let moreComing)? = json["moreComing"], case .string(let token)? = json["syncToken"] else {
            throw JSONDirectDecoding.declined
        }
        let reverse = try json["reverse"].map { json throws(WireError) in try context.optionalBool(json) }
        self.init(records: records, syncToken: SyncToken(rawValue: token), moreComing: moreComing, reverse: reverse.flatMap { $0 })
    }
}

extension ZoneChanges.Response: JSONDirectEncodable, JSONDirectDecodable {
    func writeJSON(to writer: inout JSONWriter) throws(WireError) {
        writer.writeRaw(#"{"zones":"#)
        try writer.writeArray(zones)
        writer.writeByte(UInt8(ascii: "}"))
    }

    // NB: the client's page of a zone's changes (an initial sync reads every record of the zone through it).
    init(directJSON json: JSONValue, context: JSONDirectDecoding) throws(WireError) {
        guard let zones = json["zones"] else { throw JSONDirectDecoding.declined }
        self.init(zones: try Self.array(zones, context))
    }
}

extension ZoneChanges.ZoneResult: JSONDirectDecodable {
    init(directJSON json: JSONValue, context: JSONDirectDecoding) throws(WireError) {
        guard case .object(let members) = json else { throw JSONDirectDecoding.declined }
        if members["serverErrorCode"] != nil {
            guard let error = try context.optionalCodable(ZoneRecordFetchError.self, json) else { throw JSONDirectDecoding.declined }
            self = .error(error)
            return
        }
        guard let zoneID = members["zoneID"], case .bool(let moreComing)? = members["moreComing"],
            case .string(let token)? = members["syncToken"]
        else { throw JSONDirectDecoding.declined }
        let records = try Self.records(json, context)
        self = .changes(
            ZoneChanges.ZoneRecords(
                zoneID: try ZoneID(directJSON: zoneID, context: context), records: records, syncToken: SyncToken(rawValue: token),
                moreComing: moreComing))
    }
}

extension ZoneChanges.ZoneResult: JSONDirectEncodable {
    func writeJSON(to writer: inout JSONWriter) throws(WireError) {
        switch self {
        case .changes(let changes):
            writer.writeRaw(#"{"moreComing":"#)
            writer.writeBool(changes.moreComing)
            writer.writeRaw(#","records":"#)
            try writer.writeArray(changes.records)
            writer.writeRaw(#","syncToken":"#)
            writer.writeString(changes.syncToken.rawValue)
            writer.writeRaw(#","zoneID":"#)
            changes.zoneID.writeJSON(to: &writer)
            writer.writeByte(UInt8(ascii: "}"))
        case .error(let error):
            try writer.writeEncodable(error)
        }
    }
}

extension JSONDirectDecodable {
    /// The required `records` array of a response body.
    fileprivate static func records(_ json: JSONValue, _ context: JSONDirectDecoding) throws(WireError) -> [RecordResult] {
        guard let records = json["records"] else { throw JSONDirectDecoding.declined }
        return try array(records, context)
    }

    /// A required array of direct-decodable elements.
    fileprivate static func array<Element: JSONDirectDecodable>(
        _ json: JSONValue, _ context: JSONDirectDecoding
    ) throws(WireError) -> [Element] {
        guard case .array(let elements) = json else { throw JSONDirectDecoding.declined }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for element in elements { result.append(try Element(directJSON: element, context: context)) }
        return result
    }
}
