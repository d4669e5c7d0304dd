public import StratusWire

/// A share as the store keeps it, next to its `cloudkit.share` record in the owner's zone.
public struct StoredShare: Hashable, Sendable {
    /// The zone holding the share record (in the owner's private database).
    public var zoneRowID: Int64
    /// The share record's name.
    public var shareName: String
    /// The shared root record; `nil` for a zone-wide share.
    public var rootRecordName: String?
    /// The short GUID of the share URL.
    public var shortGUID: String
    /// What anyone with the URL may do once they accept.
    public var publicPermission: SharePermission
    /// Everyone but the owner.
    public var participants: [StoredParticipant]

    /// Creates a share.
    public init(
        zoneRowID: Int64, shareName: String, rootRecordName: String?, shortGUID: String, publicPermission: SharePermission,
        participants: [StoredParticipant]
    ) {
        self.zoneRowID = zoneRowID
        self.shareName = shareName
        self.rootRecordName = rootRecordName
        self.shortGUID = shortGUID
        self.publicPermission = publicPermission
        self.participants = participants
    }
}

/// One participant of a share.
public struct StoredParticipant: Hashable, Sendable {
    /// A stable ID, unique within the share.
    public var participantID: String
    /// The user, once known (invitations by e-mail address of someone without an account have none).
    public var userRecordName: String?
    /// The e-mail address the participant was invited with.
    public var emailAddress: String?
    /// `READ_ONLY` or `READ_WRITE`.
    public var permission: SharePermission
    /// `USER`, `ADMINISTRATOR` or `PUBLIC_USER`.
    public var type: ParticipantType
    /// `INVITED` until the participant accepts.
    public var acceptanceStatus: ParticipantAcceptanceStatus

    /// Creates a participant.
    public init(
        participantID: String, userRecordName: String?, emailAddress: String?, permission: SharePermission, type: ParticipantType,
        acceptanceStatus: ParticipantAcceptanceStatus
    ) {
        self.participantID = participantID
        self.userRecordName = userRecordName
        self.emailAddress = emailAddress
        self.permission = permission
        self.type = type
        self.acceptanceStatus = acceptanceStatus
    }
}

/// A zone a user may reach through an accepted share.
public struct ShareGrant: Hashable, Sendable {
    /// The zone (in its owner's private database).
    public var zoneRowID: Int64
    /// The share granting access.
    public var shareName: String
    /// The share's root record; `nil` for a zone-wide share.
    public var rootRecordName: String?
    /// What the user may do.
    public var permission: SharePermission

    /// Creates a grant.
    public init(zoneRowID: Int64, shareName: String, rootRecordName: String?, permission: SharePermission) {
        self.zoneRowID = zoneRowID
        self.shareName = shareName
        self.rootRecordName = rootRecordName
        self.permission = permission
    }
}

/// A record that entered or left a record share's hierarchy: itself moved or deleted, or an
/// ancestor was (design note 0017).
public struct HierarchyMove: Hashable, Sendable {
    /// The zone change sequence of the move (the moved or deleted record's change).
    public var sequence: Int64
    /// The record whose membership changed.
    public var recordName: String
    /// The root of the record share whose hierarchy it entered or left.
    public var root: String

    /// Creates a move.
    public init(sequence: Int64, recordName: String, root: String) {
        self.sequence = sequence
        self.recordName = recordName
        self.root = root
    }
}

/// Share reads, part of every ``RecordStoreReader`` (design note 0017).
public protocol ShareStoreReader {
    /// The share whose record is `name` in the zone.
    func share(named name: String, inZone zoneRowID: Int64) throws -> StoredShare?

    /// The share rooted at `recordName` in the zone, if any.
    func share(rootedAt recordName: String, inZone zoneRowID: Int64) throws -> StoredShare?

    /// The share with this short GUID.
    func share(shortGUID: String) throws -> StoredShare?

    /// The short GUID minted for a record with `createShortGUID`, if any.
    func shortGUID(ofRecord name: String, inZone zoneRowID: Int64) throws -> String?

    /// The record a short GUID was minted for.
    func record(shortGUID: String) throws -> (zoneRowID: Int64, recordName: String)?

    /// What `userRecordName` has accepted: one grant per share, in zone order.
    func grants(of userRecordName: String) throws -> [ShareGrant]

    /// The roots of the zone's record shares.
    func recordShareRoots(inZone zoneRowID: Int64) throws -> Set<String>

    /// The hierarchy moves of the zone with a change sequence in `sequences`, in sequence order.
    func hierarchyMoves(inZone zoneRowID: Int64, sequences: ClosedRange<Int64>) throws -> [HierarchyMove]
}

/// Share writes, valid only inside ``RecordStore/write(_:)``.
public protocol ShareStoreWriter: ShareStoreReader {
    /// Inserts or replaces a share and all of its participants.
    func putShare(_ share: StoredShare) throws

    /// Removes a share and its participants; nothing if there is none.
    func deleteShare(named name: String, inZone zoneRowID: Int64) throws

    /// Records the short GUID of a record.
    func putShortGUID(_ shortGUID: String, recordName: String, inZone zoneRowID: Int64) throws

    /// Records that a record entered or left the hierarchy of the share rooted at `root` at change `sequence`.
    func putHierarchyMove(_ move: HierarchyMove, inZone zoneRowID: Int64) throws
}
