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
        return wire
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
