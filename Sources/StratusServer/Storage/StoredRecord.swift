public import StratusWire

/// A record as the server keeps it: system fields plus typed field values.
///
/// Tombstones (deleted records) keep their name, type and change sequence so
/// change feeds can report the deletion.
public struct StoredRecord: Hashable, Sendable {
    /// The zone's row ID in the store.
    public var zoneRowID: Int64
    /// The record name, unique within the zone.
    public var recordName: String
    /// The record type, such as `Note`.
    public var recordType: String
    /// The opaque version; a new one on every save.
    public var changeTag: String
    /// The field values by name (empty on tombstones).
    public var fields: [String: FieldValue]
    /// When and by whom the record was created.
    public var created: Stamp
    /// When and by whom the record was last modified (or deleted).
    public var modified: Stamp
    /// The zone change sequence of the record's last change.
    public var changeSequence: Int64
    /// Whether this is a tombstone.
    public var isDeleted: Bool

    /// A moment and an author.
    public struct Stamp: Hashable, Sendable {
        /// Milliseconds since 1970.
        public var timestamp: Int64
        /// The user record name of the author.
        public var userRecordName: String
        /// The device that wrote it.
        public var deviceID: String

        /// Creates a stamp.
        public init(timestamp: Int64, userRecordName: String, deviceID: String) {
            self.timestamp = timestamp
            self.userRecordName = userRecordName
            self.deviceID = deviceID
        }
    }

    /// Creates a stored record.
    public init(
        zoneRowID: Int64, recordName: String, recordType: String, changeTag: String, fields: [String: FieldValue],
        created: Stamp, modified: Stamp, changeSequence: Int64, isDeleted: Bool = false
    ) {
        self.zoneRowID = zoneRowID
        self.recordName = recordName
        self.recordType = recordType
        self.changeTag = changeTag
        self.fields = fields
        self.created = created
        self.modified = modified
        self.changeSequence = changeSequence
        self.isDeleted = isDeleted
    }
}

/// A reference from one record's field to another record, as the store indexes it.
public struct ReferenceEdge: Hashable, Sendable {
    /// The referring record's zone row.
    public var sourceZoneRowID: Int64
    /// The referring record.
    public var sourceRecordName: String
    /// The field holding the reference.
    public var fieldName: String
    /// The target's zone row.
    public var targetZoneRowID: Int64
    /// The target record.
    public var targetRecordName: String
    /// `NONE`, `DELETE_SELF` or `VALIDATE`.
    public var action: ReferenceAction

    /// Creates an edge.
    public init(
        sourceZoneRowID: Int64, sourceRecordName: String, fieldName: String, targetZoneRowID: Int64,
        targetRecordName: String, action: ReferenceAction
    ) {
        self.sourceZoneRowID = sourceZoneRowID
        self.sourceRecordName = sourceRecordName
        self.fieldName = fieldName
        self.targetZoneRowID = targetZoneRowID
        self.targetRecordName = targetRecordName
        self.action = action
    }
}
