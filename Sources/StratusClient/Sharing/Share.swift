import Foundation
public import StratusWire

/// A share: who else may reach a record or a whole zone of the owner's private database (`CKShare`).
///
/// A share is a `cloudkit.share` record saved beside what it shares, in a custom zone of the
/// owner's private database. Build one with ``init(rootRecord:)`` or ``init(recordZoneID:)``,
/// add participants, save it with `Database.save(_:)`, then hand the ``shortGUID`` to
/// the participants, who accept it with ``Container/acceptShare(shortGUID:)``.
///
/// ```swift
/// var share = Share(recordZoneID: projects)
/// share.addParticipant(Share.Participant(emailAddress: "bob@example.com", permission: .readOnly))
/// let saved = try await container.privateCloudDatabase.save(share)
/// if let link = saved.shortGUID { send(link) }  // the invitation
/// ```
public struct Share: Hashable, Sendable {
    /// The record name of a zone-wide share (CloudKit's `CKRecordNameZoneWideShare`).
    public static let zoneWideShareRecordName = "cloudkit.zoneshare"

    /// The share record's ID: in the root record's zone, or ``zoneWideShareRecordName`` in the shared zone.
    public let recordID: RecordID
    /// The shared record; `nil` for a zone-wide share, or when the share was fetched without it.
    public let rootRecordID: RecordID?
    /// Whether the share covers its whole zone.
    public var isZoneWide: Bool { recordID.recordName == Self.zoneWideShareRecordName }
    /// What anyone who has the short GUID may do; `.none` (the default) admits participants only.
    public var publicPermission: SharePermission = .none
    /// The invited people (the owner is implicit and not listed).
    public internal(set) var participants: [Participant] = []
    /// The short ID that names the share in URLs; `nil` until saved.
    public internal(set) var shortGUID: String?
    /// The share's owner; `nil` until saved.
    public internal(set) var owner: Participant?
    /// The caller as a participant of this share, as the server last reported it.
    public internal(set) var currentUserParticipant: Participant?
    /// The server's version token; `nil` until saved or fetched.
    public internal(set) var recordChangeTag: ChangeTag?

    /// A new, unsaved share of a record. The record must be saved, in a custom zone.
    ///
    /// - Parameters:
    ///   - rootRecord: The record to share.
    ///   - shareRecordName: The share record's name; a new UUID by default.
    public init(rootRecord: Record, shareRecordName: String = Self.newRecordName()) {
        self.recordID = RecordID(recordName: shareRecordName, zoneID: rootRecord.recordID.zoneID)
        self.rootRecordID = rootRecord.recordID
    }

    /// A new, unsaved share of a whole custom zone.
    ///
    /// - Parameter recordZoneID: The zone to share.
    public init(recordZoneID: ZoneID) {
        self.recordID = RecordID(recordName: Self.zoneWideShareRecordName, zoneID: recordZoneID)
        self.rootRecordID = nil
    }

    init(recordID: RecordID, rootRecordID: RecordID?) {
        self.recordID = recordID
        self.rootRecordID = rootRecordID
    }

    /// A new record name for a record share.
    public static func newRecordName() -> String { "share-" + UUID().uuidString }

    // MARK: Participants

    /// Adds a participant, or replaces the one with the same user record name or e-mail address
    /// (to change its permission). Save the share for it to take effect.
    ///
    /// - Parameter participant: The participant.
    public mutating func addParticipant(_ participant: Participant) {
        if let index = participants.firstIndex(where: { $0.matches(participant) }) {
            var merged = participant
            merged.participantID = merged.participantID ?? participants[index].participantID
            merged.acceptanceStatus = participants[index].acceptanceStatus
            merged.role = participants[index].role
            if merged.userRecordName == nil { merged.userRecordName = participants[index].userRecordName }
            if merged.emailAddress == nil { merged.emailAddress = participants[index].emailAddress }
            participants[index] = merged
        } else {
            participants.append(participant)
        }
    }

    /// Removes the participant with the same user record name, e-mail address or participant ID.
    /// Save the share for it to take effect: the participant loses access at once.
    ///
    /// - Parameter participant: The participant.
    public mutating func removeParticipant(_ participant: Participant) {
        participants.removeAll { $0.matches(participant) }
    }

    /// Removes the participant invited with this e-mail address (case-insensitive).
    ///
    /// - Parameter emailAddress: The e-mail address.
    public mutating func removeParticipant(emailAddress: String) {
        removeParticipant(Participant(emailAddress: emailAddress))
    }

    /// Removes the participant with this user record name.
    ///
    /// - Parameter userRecordName: The user record name.
    public mutating func removeParticipant(userRecordName: String) {
        removeParticipant(Participant(userRecordName: userRecordName))
    }

    /// The participant with this e-mail address or user record name, if any.
    ///
    /// - Parameters:
    ///   - emailAddress: The e-mail address.
    ///   - userRecordName: The user record name.
    /// - Returns: The participant.
    public func participant(emailAddress: String? = nil, userRecordName: String? = nil) -> Participant? {
        let probe = Participant(emailAddress: emailAddress, userRecordName: userRecordName, permission: .readOnly)
        return participants.first { $0.matches(probe) }
    }
}

extension Share {
    /// Someone a share is shared with (`CKShare.Participant`).
    public struct Participant: Hashable, Sendable {
        /// The participant's user record name, once known.
        public internal(set) var userRecordName: String?
        /// The e-mail address the participant was invited by.
        public internal(set) var emailAddress: String?
        /// What the participant may do: `.readOnly` or `.readWrite`.
        public var permission: SharePermission
        /// The participant's role (`USER`, `PUBLIC_USER`, `OWNER`…), as the server reports it.
        public internal(set) var role: ParticipantType = .user
        /// Whether the participant has accepted, as the server reports it.
        public internal(set) var acceptanceStatus: ParticipantAcceptanceStatus = .invited
        /// The server's ID of the participant.
        public internal(set) var participantID: String?

        /// A participant invited by e-mail address (matched to an account with that address).
        ///
        /// - Parameters:
        ///   - emailAddress: The e-mail address.
        ///   - permission: What the participant may do.
        public init(emailAddress: String, permission: SharePermission = .readOnly) {
            self.init(emailAddress: emailAddress, userRecordName: nil, permission: permission)
        }

        /// A participant named by user record name (from ``Container/discoverUserIdentities(emails:)`` for instance).
        ///
        /// - Parameters:
        ///   - userRecordName: The user record name.
        ///   - permission: What the participant may do.
        public init(userRecordName: String, permission: SharePermission = .readOnly) {
            self.init(emailAddress: nil, userRecordName: userRecordName, permission: permission)
        }

        init(emailAddress: String?, userRecordName: String?, permission: SharePermission) {
            self.emailAddress = emailAddress
            self.userRecordName = userRecordName
            self.permission = permission
        }

        /// Creates a participant from the wire Share Participant dictionary.
        ///
        /// - Parameter wire: The dictionary.
        public init(wire: ShareParticipant) {
            let identity = wire.userIdentity
            self.userRecordName = identity?.userRecordName ?? identity?.lookupInfo?.userRecordName
            self.emailAddress = identity?.lookupInfo?.emailAddress
            self.permission = wire.permission ?? .readOnly
            self.role = wire.type ?? .user
            self.acceptanceStatus = wire.acceptanceStatus ?? .unknown
            self.participantID = wire.participantId
        }

        /// The wire Share Participant dictionary sent when saving a share.
        public var wire: ShareParticipant {
            let lookup = emailAddress.map { UserLookupInfo(emailAddress: $0) }
            return ShareParticipant(
                userIdentity: UserIdentity(userRecordName: userRecordName, lookupInfo: lookup), permission: permission,
                type: role, acceptanceStatus: acceptanceStatus, participantId: participantID)
        }

        func matches(_ other: Participant) -> Bool {
            if let mine = participantID, let theirs = other.participantID, mine == theirs { return true }
            if let mine = userRecordName, let theirs = other.userRecordName, mine == theirs { return true }
            if let mine = emailAddress, let theirs = other.emailAddress, mine.lowercased() == theirs.lowercased() { return true }
            return false
        }
    }
}

extension Share {
    /// Creates a share from a share record the server sent.
    ///
    /// - Parameters:
    ///   - wire: The `cloudkit.share` record dictionary.
    ///   - recordID: The share record's ID.
    ///   - rootRecordID: The shared record, when known (responses do not carry it).
    public init(wire: StratusWire.Record, recordID: RecordID, rootRecordID: RecordID? = nil) {
        let root = wire.forRecord.map { RecordID(recordName: $0.recordName, zoneID: recordID.zoneID) } ?? rootRecordID
        self.init(recordID: recordID, rootRecordID: recordID.recordName == Self.zoneWideShareRecordName ? nil : root)
        publicPermission = wire.publicPermission ?? .none
        participants = (wire.participants ?? []).map(Participant.init(wire:)).filter { $0.role != .owner }
        shortGUID = wire.shortGUID
        owner = wire.owner.map(Participant.init(wire:))
        currentUserParticipant = wire.currentUserParticipant.map(Participant.init(wire:))
        recordChangeTag = wire.recordChangeTag
    }

    /// The `records/modify` operation that saves this share: `create` when new, else `update` with its change tag.
    public var saveOperation: RecordOperation {
        var wire = StratusWire.Record(
            recordName: recordID.recordName, recordType: StratusWire.Record.shareRecordType, recordChangeTag: recordChangeTag,
            fields: [:])
        wire.publicPermission = publicPermission
        wire.participants = participants.map(\.wire)
        guard let tag = recordChangeTag else {
            wire.forRecord = rootRecordID.map { ShareRoot(recordName: $0.recordName) }
            return .create(wire)
        }
        return .update(wire, expecting: tag)
    }
}
