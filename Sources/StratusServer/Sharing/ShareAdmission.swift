import StratusWire

/// Share records and short GUIDs in a `records/modify`, applied in its transaction (design note 0017).
///
/// A `cloudkit.share` record is stored as an ordinary record (fields `{}`) so change feeds
/// carry it; its root, public permission and participants live beside it in the store's
/// share tables, which decide who reaches the zone through the shared database.
struct ShareAdmission: Sendable {
    /// The owner of the database being written.
    var owner: String
    /// Who writes: the owner, or a participant through the shared database.
    var caller: String
    /// The database's scope: shares are saved only in their owner's private database.
    var scope: DatabaseScope
    /// User record names of discoverable participants invited by e-mail address (lowercased), looked up before the transaction.
    var usersByEmail: [String: String]
    /// A new short GUID.
    var makeShortGUID: @Sendable () throws -> String
    /// A new participant ID.
    var makeParticipantID: @Sendable () -> String

    /// Whether `request` needs this admission at all: a share record, a `createShortGUID`, or a
    /// deletion by a participant writing in someone else's private database (through the shared
    /// database), which may name a share or a share's root.
    static func isNeeded(for operations: [RecordOperation], participantWrites: Bool) -> Bool {
        operations.contains { operation in
            let record = operation.record
            let deletes = operation.operationType == .delete || operation.operationType == .forceDelete
            return record.isShare || record.createShortGUID == true || record.recordType == nil || (participantWrites && deletes)
        }
    }

    /// A participant's deletion of a share record or of a share's root, checked before the record operation runs.
    ///
    /// Only the owner deletes a share, or the root record a share hangs on: either would revoke
    /// every participant at once. A participant's deletion of the share record removes only
    /// that participant (they leave the share; the record stays, and the participant's result
    /// reads as a deletion); a participant's deletion of a shared root is refused.
    ///
    /// - Returns: `true` when the operation was a participant leaving and must not run as a record deletion.
    /// - Throws: ``ServiceError`` `ACCESS_DENIED` for a shared root, or for a share the caller is no participant of.
    func participantDeletes(_ operation: RecordOperation, zone: ZoneRow, _ tx: any RecordStoreWriter) throws -> Bool {
        guard caller != owner, operation.operationType == .delete || operation.operationType == .forceDelete,
            let name = operation.record.recordName
        else { return false }
        let shares = tx
        if var share = try shares.share(named: name, inZone: zone.rowID) {
            guard let index = share.participants.firstIndex(where: { $0.userRecordName == caller && $0.acceptanceStatus != .removed }) else {
                throw ServiceError(.accessDenied, "share '\(name)' can be deleted only by its owner")
            }
            share.participants[index].acceptanceStatus = .removed
            try shares.putShare(share)
            return true
        }
        if let share = try shares.share(rootedAt: name, inZone: zone.rowID) {
            throw ServiceError(
                .accessDenied, "record '\(name)' is the root of share '\(share.shareName)'; only the owner of zone '\(zone.zoneName)' can delete it")
        }
        return false
    }

    /// The e-mail addresses of participants named in share records, to look up before the transaction.
    static func invitedEmails(in operations: [RecordOperation]) -> Set<String> {
        var emails: Set<String> = []
        for operation in operations where operation.record.isShare {
            for participant in operation.record.participants ?? [] {
                if let email = participant.userIdentity?.lookupInfo?.emailAddress { emails.insert(email.lowercased()) }
            }
        }
        return emails
    }

    /// Checks a share operation before it is applied; returns the share to store once the record is saved.
    ///
    /// - Throws: ``ServiceError`` for that operation's result slot.
    func prepare(_ operation: RecordOperation, zone: ZoneRow, _ tx: any RecordStoreWriter) throws -> StoredShare? {
        let record = operation.record
        if operation.operationType == .delete || operation.operationType == .forceDelete { return nil }
        var existing: StoredShare? = nil
        if let name = record.recordName, record.isShare || record.recordType == nil {
            existing = try tx.share(named: name, inZone: zone.rowID)
        }
        guard record.isShare || existing != nil else { return nil }
        guard scope == .private, caller == owner else {
            throw ServiceError(.accessDenied, "shares can be saved only by their owner, in the owner's private database")
        }
        let shares = tx
        guard !zone.isDefaultZone else {
            throw ServiceError.badRequest("records in the default zone cannot be shared; put them in a custom zone")
        }
        let root = try rootName(of: record, existing: existing, zone: zone, shares, tx)
        let participants = try (record.participants.map { try admit($0, existing: existing?.participants ?? []) }) ?? existing?.participants ?? []
        var shortGUID = existing?.shortGUID
        if shortGUID == nil, let root { shortGUID = try shares.shortGUID(ofRecord: root, inZone: zone.rowID) }
        let guid = try shortGUID ?? makeShortGUID()
        return StoredShare(
            zoneRowID: zone.rowID, shareName: record.recordName ?? "", rootRecordName: root, shortGUID: guid,
            publicPermission: try permission(record.publicPermission ?? existing?.publicPermission ?? .none, allowNone: true),
            participants: participants
        )
    }

    private func rootName(
        of record: Record, existing: StoredShare?, zone: ZoneRow, _ shares: any ShareStoreWriter, _ tx: any RecordStoreWriter
    ) throws -> String? {
        guard let forRecord = record.forRecord else { return existing?.rootRecordName }
        if let existing, existing.rootRecordName != forRecord.recordName {
            throw ServiceError.badRequest("share '\(existing.shareName)' is for record '\(existing.rootRecordName ?? "the zone")'; its root cannot change")
        }
        guard let root = try tx.record(named: forRecord.recordName, inZone: zone.rowID), !root.isDeleted else {
            throw ServiceError(.notFound, "Cannot share - no such record exists to share: '\(forRecord.recordName)' is not in zone '\(zone.zoneName)'")
        }
        if let other = try shares.share(rootedAt: forRecord.recordName, inZone: zone.rowID), other.shareName != record.recordName {
            throw ServiceError.badRequest("record '\(forRecord.recordName)' is already shared by share '\(other.shareName)'")
        }
        return root.recordName
    }

    /// One participant of a saved share, matched with the share's previous participants so that
    /// acceptance survives an update.
    private func admit(_ participants: [ShareParticipant], existing: [StoredParticipant]) throws -> [StoredParticipant] {
        var admitted: [StoredParticipant] = []
        for participant in participants {
            let identity = participant.userIdentity
            let email = identity?.lookupInfo?.emailAddress
            let user = identity?.userRecordName ?? identity?.lookupInfo?.userRecordName ?? email.flatMap { usersByEmail[$0.lowercased()] }
            if participant.type == .owner || user == owner { continue }
            guard user != nil || email != nil else {
                throw ServiceError.badRequest("a share participant needs userIdentity.userRecordName or userIdentity.lookupInfo.emailAddress")
            }
            let previous = existing.first { old in
                (user != nil && old.userRecordName == user) || (email != nil && old.emailAddress?.lowercased() == email?.lowercased())
                    || (participant.participantId != nil && old.participantID == participant.participantId)
            }
            if admitted.contains(where: { $0.participantID == previous?.participantID || (user != nil && $0.userRecordName == user) }) { continue }
            let status = previous.map { $0.acceptanceStatus == .removed ? .invited : $0.acceptanceStatus } ?? .invited
            admitted.append(
                StoredParticipant(
                    participantID: previous?.participantID ?? makeParticipantID(), userRecordName: user ?? previous?.userRecordName,
                    emailAddress: email ?? previous?.emailAddress,
                    permission: try permission(participant.permission ?? previous?.permission ?? .readOnly, allowNone: false),
                    type: participant.type.flatMap { $0 == .unknown ? nil : $0 } ?? previous?.type ?? .user, acceptanceStatus: status
                )
            )
        }
        return admitted
    }

    private func permission(_ value: SharePermission, allowNone: Bool) throws(ServiceError) -> SharePermission {
        guard value == .readOnly || value == .readWrite || (allowNone && value == .none) else {
            throw .badRequest("permission '\(value.rawValue)' is not allowed here; use \(allowNone ? "NONE, " : "")READ_ONLY or READ_WRITE")
        }
        return value
    }

    /// Stores the share of a saved share record and mints a requested short GUID; fills in the
    /// response record's sharing keys.
    func saved(_ record: StoredRecord, operation: RecordOperation, share: StoredShare?, zone: ZoneRow, wire: inout Record, _ tx: any RecordStoreWriter) throws {
        let shares = tx
        if var share {
            share.shareName = record.recordName
            try shares.putShare(share)
            if let root = share.rootRecordName, try shares.shortGUID(ofRecord: root, inZone: zone.rowID) == nil {
                try shares.putShortGUID(share.shortGUID, recordName: root, inZone: zone.rowID)
            }
            ShareDecoration.decorate(&wire, share: share, owner: owner, caller: owner)
        }
        if operation.record.createShortGUID == true {
            if let guid = try shares.shortGUID(ofRecord: record.recordName, inZone: zone.rowID) {
                wire.shortGUID = guid
            } else {
                let guid = try makeShortGUID()
                try shares.putShortGUID(guid, recordName: record.recordName, inZone: zone.rowID)
                wire.shortGUID = guid
            }
        }
    }

    /// Removes the shares of deleted share records and of deleted roots.
    static func deleted(_ changes: [RecordChange], zone: ZoneRow, _ tx: any RecordStoreWriter) throws {
        let shares = tx
        for change in changes where change.after == nil {
            guard let before = change.before else { continue }
            if before.recordType == Record.shareRecordType || before.recordType == "cloudKit.share" {
                try shares.deleteShare(named: before.recordName, inZone: zone.rowID)
            } else if let share = try shares.share(rootedAt: before.recordName, inZone: zone.rowID) {
                try shares.deleteShare(named: share.shareName, inZone: zone.rowID)
            }
        }
    }
}

/// The sharing keys of wire records.
enum ShareDecoration {
    /// Adds a share's `shortGUID`, `publicPermission`, `participants`, `owner` and `currentUserParticipant`.
    static func decorate(_ wire: inout Record, share: StoredShare, owner: String, caller: String) {
        wire.shortGUID = share.shortGUID
        wire.publicPermission = share.publicPermission
        wire.participants = share.participants.map(participant)
        let ownerParticipant = ShareParticipant(
            userIdentity: UserIdentity(userRecordName: owner), permission: .readWrite, type: .owner, acceptanceStatus: .accepted,
            participantId: "owner"
        )
        wire.owner = ownerParticipant
        wire.currentUserParticipant = caller == owner ? ownerParticipant : share.participants.first { $0.userRecordName == caller }.map(participant)
    }

    /// Adds the sharing keys to a share record read back (`records/lookup`).
    ///
    /// A record that a share is rooted at gets `share` naming that share record, as CloudKit's
    /// shared roots do, so clients can find a record's share from the record.
    static func decorate(_ wire: inout Record, _ record: StoredRecord, zone: ZoneRow, caller: String, _ tx: any RecordStoreReader) throws {
        guard !record.isDeleted else { return }
        let shares = tx
        guard record.recordType == Record.shareRecordType || record.recordType == "cloudKit.share" else {
            if let share = try shares.share(rootedAt: record.recordName, inZone: zone.rowID) {
                wire.share = Reference(recordName: share.shareName)
            }
            return
        }
        guard let share = try shares.share(named: record.recordName, inZone: zone.rowID) else { return }
        decorate(&wire, share: share, owner: zone.database.owner, caller: caller)
    }

    /// The wire form of a participant.
    static func participant(_ participant: StoredParticipant) -> ShareParticipant {
        ShareParticipant(
            userIdentity: UserIdentity(
                userRecordName: participant.userRecordName,
                lookupInfo: participant.emailAddress.map { UserLookupInfo(emailAddress: $0) }
            ),
            permission: participant.permission, type: participant.type, acceptanceStatus: participant.acceptanceStatus,
            participantId: participant.participantID
        )
    }
}
