import Foundation
import StratusWire

/// The changes of one write, as kept in the push outbox until fan-out has matched them.
///
/// Holds what matching and the notification payloads need and nothing the store could
/// recompute later: the records as they were before and after (a deletion matches the record
/// as it was; a later write may already have replaced it), each change's notification ID (so
/// a change keeps one `nid` however many fan-out transactions it takes), and the author's
/// skipped token. Encoded as JSON with the wire encoding of field values; `Codable` is the
/// reference, the stored bytes are written and read directly (PushOutboxPayload+JSON.swift).
struct PushOutboxPayload: Codable, Sendable, Equatable {
    /// The zone's row ID in the store.
    var zoneRowID: Int64
    /// The token that must not receive these notifications (the author's own device), if any.
    var skippedToken: String?
    /// The changes, in the order they were applied.
    var changes: [Change]

    /// One change and its notification ID.
    struct Change: Codable, Sendable, Equatable {
        var notificationID: String
        var before: Image?
        var after: Image?
    }

    /// A record's state.
    struct Image: Codable, Sendable, Equatable {
        var recordName: String
        var recordType: String
        var changeTag: String
        var fields: [String: FieldValue]
        var created: Stamp
        var modified: Stamp
        var changeSequence: Int64

        init(_ record: StoredRecord) {
            recordName = record.recordName
            recordType = record.recordType
            changeTag = record.changeTag
            fields = record.fields
            created = Stamp(record.created)
            modified = Stamp(record.modified)
            changeSequence = record.changeSequence
        }

        func record(zoneRowID: Int64) -> StoredRecord {
            StoredRecord(
                zoneRowID: zoneRowID, recordName: recordName, recordType: recordType, changeTag: changeTag, fields: fields,
                created: created.stamp, modified: modified.stamp, changeSequence: changeSequence
            )
        }
    }

    /// A moment and an author.
    struct Stamp: Codable, Sendable, Equatable {
        var timestamp: Int64
        var user: String
        var device: String

        init(_ stamp: StoredRecord.Stamp) {
            timestamp = stamp.timestamp
            user = stamp.userRecordName
            device = stamp.deviceID
        }

        var stamp: StoredRecord.Stamp { StoredRecord.Stamp(timestamp: timestamp, userRecordName: user, deviceID: device) }
    }

    /// The payload of `changes`, each with a new notification ID.
    init(_ changes: [RecordChange], zoneRowID: Int64, skippedToken: String?, makeNotificationID: () -> String) {
        self.zoneRowID = zoneRowID
        self.skippedToken = skippedToken
        self.changes = changes.map { change in
            Change(notificationID: makeNotificationID(), before: change.before.map(Image.init), after: change.after.map(Image.init))
        }
    }

    /// The changes with their notification IDs.
    var recordChanges: [(notificationID: String, change: RecordChange)] {
        changes.map { change in
            (change.notificationID, RecordChange(before: change.before?.record(zoneRowID: zoneRowID), after: change.after?.record(zoneRowID: zoneRowID)))
        }
    }

    /// The types of the changed records.
    var recordTypes: Set<String> {
        Set(changes.compactMap { $0.after?.recordType ?? $0.before?.recordType })
    }
}
