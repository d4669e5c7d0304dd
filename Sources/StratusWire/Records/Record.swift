/// A record as it travels on the wire: the Record dictionary.
///
/// Requests and responses share the shape; which keys appear depends on the direction and on
/// whether the record is shared or is itself a share. Every key is optional so that exactly the
/// keys received are written back; unknown keys (`pluginFields`, `isEncrypted`, …) are ignored.
///
/// ```swift
/// import Foundation
/// import StratusWire
///
/// func createTask(due dueDate: Date) -> RecordOperation {
///     var task = Record(recordName: "t1", recordType: "Task")
///     task.fields = ["title": .string("Ship"), "due": .date(dueDate)]
///     return RecordOperation.create(task)
/// }
/// ```
///
/// The share record type is spelled ``shareRecordType`` (`cloudkit.share`) on the wire.
///
/// CloudKit reference: Types ("Record Dictionary"); Apple's CloudKit Web Services Reference: “Record dictionary”.
public struct Record: Hashable, Sendable {
    /// The record's name, unique in its zone; omit on `create` to let the server pick a UUID.
    public var recordName: String?
    /// The record type; needed when the record may not exist yet.
    public var recordType: String?
    /// The version token; required for `update`, `replace` and `delete`.
    public var recordChangeTag: ChangeTag?
    /// The field values by name; `nil` when the key is absent.
    public var fields: [String: FieldValue]?
    /// Who created the record and when (responses).
    public var created: RecordTimestamp?
    /// Who last modified the record and when (responses).
    public var modified: RecordTimestamp?
    /// `true` for deletion acknowledgements and tombstones.
    public var deleted: Bool?
    /// Ask the server to mint a ``shortGUID`` (requests).
    public var createShortGUID: Bool?
    /// The short ID used in share URLs (responses).
    public var shortGUID: String?
    /// The parent record, for hierarchical sharing (`{"recordName": …}`).
    public var parent: Reference?
    /// On a shared root record: the share covering it.
    public var share: Reference?
    /// When creating a share: the root record being shared.
    public var forRecord: ShareRoot?
    /// A share's permission for anyone with the URL.
    public var publicPermission: SharePermission?
    /// A share's participants.
    public var participants: [ShareParticipant]?
    /// A share's owner (responses).
    public var owner: ShareParticipant?
    /// The caller as a participant of a share (responses).
    public var currentUserParticipant: ShareParticipant?
    /// The record's zone (live responses carry it, with `zoneType`).
    public var zoneID: ZoneID?

    /// The record type of shares on the wire (`cloudkit.share`; Apple's reference misspells it).
    public static let shareRecordType = "cloudkit.share"

    /// Creates a record dictionary.
    ///
    /// - Parameters:
    ///   - recordName: The record's name; `nil` to let the server choose on `create`.
    ///   - recordType: The record type.
    ///   - recordChangeTag: The version token.
    ///   - fields: The field values.
    ///   - zoneID: The record's zone, if it should be written.
    public init(
        recordName: String? = nil, recordType: String? = nil, recordChangeTag: ChangeTag? = nil,
        fields: [String: FieldValue]? = nil, zoneID: ZoneID? = nil
    ) {
        self.recordName = recordName
        self.recordType = recordType
        self.recordChangeTag = recordChangeTag
        self.fields = fields
        self.zoneID = zoneID
    }

    /// The record's ID, using ``zoneID`` or else `defaultZone`; `nil` without a ``recordName``.
    ///
    /// - Parameter defaultZone: The zone to assume when the record carries none (the request's `zoneID`).
    /// - Returns: The record ID.
    public func id(defaultZone: ZoneID = .defaultZone) -> RecordID? {
        recordName.map { RecordID(recordName: $0, zoneID: zoneID ?? defaultZone) }
    }

    /// Reads or writes one field; writing creates ``fields`` if absent, `nil` removes the field.
    ///
    /// - Parameter field: The field name.
    public subscript(field: String) -> FieldValue? {
        get { fields?[field] }
        set {
            if fields == nil { fields = [:] }
            fields?[field] = newValue
        }
    }

    /// Whether this is a deletion acknowledgement or tombstone.
    public var isDeleted: Bool { deleted == true }

    /// Whether the record is a share (`cloudkit.share`, also accepting Apple's `cloudKit.share`).
    public var isShare: Bool {
        recordType == Self.shareRecordType || recordType == "cloudKit.share"
    }
}
