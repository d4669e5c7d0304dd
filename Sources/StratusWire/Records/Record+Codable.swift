extension Record: Codable {
    private enum CodingKeys: String, CodingKey {
        case recordName, recordType, recordChangeTag, fields, created, modified, deleted, createShortGUID, shortGUID
        case parent, share, forRecord, publicPermission, participants, owner, currentUserParticipant, zoneID
    }

    /// Decodes a record dictionary, ignoring unknown keys.
    ///
    /// Field values are decoded with ``FieldValue/init(json:expecting:codingPath:)``; when the decoder's
    /// ``WireCoding/fieldTypesKey`` holds a ``FieldTypeLookup``, the schema type of each field guides
    /// untagged values. A `"fields": null` reads as absent.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: ``WireError`` or `DecodingError` naming the path of the bad key.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        recordName = try container.decodeIfPresent(String.self, forKey: .recordName)
        recordType = try container.decodeIfPresent(String.self, forKey: .recordType)
        recordChangeTag = try container.decodeIfPresent(ChangeTag.self, forKey: .recordChangeTag)
        created = try container.decodeIfPresent(RecordTimestamp.self, forKey: .created)
        modified = try container.decodeIfPresent(RecordTimestamp.self, forKey: .modified)
        deleted = try container.decodeIfPresent(Bool.self, forKey: .deleted)
        createShortGUID = try container.decodeIfPresent(Bool.self, forKey: .createShortGUID)
        shortGUID = try container.decodeIfPresent(String.self, forKey: .shortGUID)
        parent = try container.decodeIfPresent(Reference.self, forKey: .parent)
        share = try container.decodeIfPresent(Reference.self, forKey: .share)
        forRecord = try container.decodeIfPresent(ShareRoot.self, forKey: .forRecord)
        publicPermission = try container.decodeIfPresent(SharePermission.self, forKey: .publicPermission)
        participants = try container.decodeIfPresent([ShareParticipant].self, forKey: .participants)
        owner = try container.decodeIfPresent(ShareParticipant.self, forKey: .owner)
        currentUserParticipant = try container.decodeIfPresent(ShareParticipant.self, forKey: .currentUserParticipant)
        zoneID = try container.decodeIfPresent(ZoneID.self, forKey: .zoneID)

        guard container.contains(.fields), try !container.decodeNil(forKey: .fields) else {
            fields = nil
            return
        }
        let lookup = decoder.userInfo[WireCoding.fieldTypesKey] as? FieldTypeLookup
        let fieldContainer = try container.nestedContainer(keyedBy: WireCodingKey.self, forKey: .fields)
        var fields: [String: FieldValue] = [:]
        for key in fieldContainer.allKeys {
            let expected = lookup?(recordType: recordType, fieldName: key.stringValue)
            fields[key.stringValue] = try FieldValue(from: fieldContainer.superDecoder(forKey: key), expecting: expected)
        }
        self.fields = fields
    }

    /// Encodes the keys that are set; `nil` properties are omitted.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(recordName, forKey: .recordName)
        try container.encodeIfPresent(recordType, forKey: .recordType)
        try container.encodeIfPresent(recordChangeTag, forKey: .recordChangeTag)
        try container.encodeIfPresent(fields, forKey: .fields)
        try container.encodeIfPresent(created, forKey: .created)
        try container.encodeIfPresent(modified, forKey: .modified)
        try container.encodeIfPresent(deleted, forKey: .deleted)
        try container.encodeIfPresent(createShortGUID, forKey: .createShortGUID)
        try container.encodeIfPresent(shortGUID, forKey: .shortGUID)
        try container.encodeIfPresent(parent, forKey: .parent)
        try container.encodeIfPresent(share, forKey: .share)
        try container.encodeIfPresent(forRecord, forKey: .forRecord)
        try container.encodeIfPresent(publicPermission, forKey: .publicPermission)
        try container.encodeIfPresent(participants, forKey: .participants)
        try container.encodeIfPresent(owner, forKey: .owner)
        try container.encodeIfPresent(currentUserParticipant, forKey: .currentUserParticipant)
        try container.encodeIfPresent(zoneID, forKey: .zoneID)
    }
}
