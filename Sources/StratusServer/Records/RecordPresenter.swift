import StratusWire

/// Turns stored records into wire records, honouring `desiredKeys`.
enum RecordPresenter {
    /// The wire form of a live record or a tombstone.
    ///
    /// - Parameter desiredKeys: Which fields to include; all when `nil`, none when empty.
    static func wire(_ record: StoredRecord, zone: ZoneRow, desiredKeys: [String]?) -> Record {
        guard !record.isDeleted else {
            var tombstone = Record(recordName: record.recordName, recordType: record.recordType, zoneID: zone.zoneID)
            tombstone.deleted = true
            return tombstone
        }
        var fields = record.fields
        let parent = fields.removeValue(forKey: parentKey)
        if let desiredKeys {
            let wanted = Set(desiredKeys)
            fields = fields.filter { wanted.contains($0.key) }
        }
        var wire = Record(
            recordName: record.recordName, recordType: record.recordType, recordChangeTag: ChangeTag(record.changeTag),
            fields: fields, zoneID: zone.zoneID
        )
        wire.created = stamp(record.created)
        wire.modified = stamp(record.modified)
        wire.deleted = false
        if case .reference(let reference) = parent { wire.parent = Reference(recordName: reference.recordName) }
        return wire
    }

    /// The stored field holding a record's `parent` reference (field names start with a letter, so
    /// no user field can take it). Kept with the fields, it round-trips through every back end and
    /// indexes a reference edge from child to parent; responses show it as `parent`, never as a field.
    static let parentKey = "___parent"

    /// The name of the record's `parent`, if it has one.
    static func parentName(of record: StoredRecord) -> String? {
        guard case .reference(let reference) = record.fields[parentKey] else { return nil }
        return reference.recordName
    }

    /// A deletion acknowledgement: `{"recordName":…,"deleted":true}`.
    static func deletion(_ recordName: String) -> Record {
        var record = Record(recordName: recordName)
        record.deleted = true
        return record
    }

    private static func stamp(_ stamp: StoredRecord.Stamp) -> RecordTimestamp {
        RecordTimestamp(timestamp: Timestamp(millisecondsSince1970: stamp.timestamp), userRecordName: stamp.userRecordName, deviceID: stamp.deviceID)
    }
}
