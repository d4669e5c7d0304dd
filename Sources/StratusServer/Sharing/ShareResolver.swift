import StratusWire

/// Looks up shares by short GUID for a caller, and accepts them.
struct ShareResolver: Sendable {
    var caller: String
    /// The caller's e-mail address (lowercased), to match invitations by address.
    var email: String?
    var container: String
    var environment: Environment
    var makeParticipantID: @Sendable () -> String

    /// The metadata of one short GUID, or its error; accepts the share when `writer` is given.
    func result(_ guid: ShortGUID, _ tx: any RecordStoreReader, writer: (any RecordStoreWriter)?) throws -> ShortGUIDResult {
        do {
            return .share(try metadata(guid, tx, writer: writer))
        } catch let error as ServiceError {
            return .error(ShortGUIDFetchError(serverErrorCode: error.code, reason: error.reason, retryAfter: error.retryAfter))
        }
    }

    private func metadata(_ guid: ShortGUID, _ tx: any RecordStoreReader, writer: (any RecordStoreWriter)?) throws -> ShareMetadata {
        let notFound = ServiceError(.notFound, "no share has the short GUID '\(guid.value)'")
        let shares = tx
        var found = try shares.share(shortGUID: guid.value)
        if found == nil, let target = try shares.record(shortGUID: guid.value) {
            found = try shares.share(rootedAt: target.recordName, inZone: target.zoneRowID)
        }
        guard var share = found, let zone = try tx.zone(rowID: share.zoneRowID), !zone.isDeleted,
            zone.database.container == container, zone.database.environment == environment
        else { throw notFound }
        let owner = zone.database.owner
        let isOwner = caller == owner
        var index = share.participants.firstIndex { $0.userRecordName == caller }
        if index == nil, let email {
            index = share.participants.firstIndex { $0.userRecordName == nil && $0.emailAddress?.lowercased() == email }
        }
        if let position = index, share.participants[position].acceptanceStatus == .removed { index = nil }
        guard isOwner || index != nil || share.publicPermission != .none else {
            throw ServiceError(.accessDenied, "the share '\(guid.value)' is not shared with you; ask its owner to add you as a participant")
        }
        if let writer, !isOwner {
            let shareWriter = writer
            if let position = index {
                share.participants[position].acceptanceStatus = .accepted
                share.participants[position].userRecordName = caller
            } else {
                share.participants.append(
                    StoredParticipant(
                        participantID: makeParticipantID(), userRecordName: caller, emailAddress: email, permission: share.publicPermission,
                        type: .publicUser, acceptanceStatus: .accepted
                    )
                )
                index = share.participants.count - 1
            }
            try shareWriter.putShare(share)
        }
        let participant = index.map { share.participants[$0] }
        var metadata = ShareMetadata(shortGUID: share.shortGUID, containerIdentifier: container, zoneID: zone.zoneID)
        metadata.databaseScope = isOwner ? "PRIVATE" : "SHARED"
        metadata.environment = environment.rawValue
        metadata.ownerIdentity = UserIdentity(userRecordName: owner)
        metadata.rootRecordName = share.rootRecordName
        if guid.shouldFetchRootRecord == true, let root = share.rootRecordName, let record = try tx.record(named: root, inZone: zone.rowID),
            !record.isDeleted
        {
            metadata.rootRecord = RecordPresenter.wire(record, zone: zone, desiredKeys: guid.rootRecordDesiredKeys)
        }
        if let record = try tx.record(named: share.shareName, inZone: zone.rowID), !record.isDeleted {
            var wire = RecordPresenter.wire(record, zone: zone, desiredKeys: nil)
            ShareDecoration.decorate(&wire, share: share, owner: owner, caller: caller)
            metadata.share = wire
        }
        metadata.participantPermission = isOwner ? .readWrite : participant?.permission ?? share.publicPermission
        metadata.participantStatus = isOwner ? .accepted : participant?.acceptanceStatus ?? .invited
        metadata.participantType = isOwner ? .owner : participant?.type ?? .publicUser
        return metadata
    }
}
