import StratusCrypto
import StratusHTTP
import StratusWire

extension CloudKitService {
    /// The sharing part of a `records/modify`, or `nil` when no operation involves sharing.
    func shareAdmission(for operations: [RecordOperation], context: RequestContext) async throws -> ShareAdmission? {
        let participantWrites = context.database.scope == .private && context.caller != context.database.owner
        guard ShareAdmission.isNeeded(for: operations, participantWrites: participantWrites) else { return nil }
        let emails = ShareAdmission.invitedEmails(in: operations)
        var users: [String: String] = [:]
        if !emails.isEmpty, let accounts = authenticator?.accounts {
            users = try await accounts.readAccounts { reader in
                var found: [String: String] = [:]
                for email in emails {
                    // Only a discoverable user's record name may be learned from an address (as
                    // `users/lookup/email` would tell it), and only a verified address binds an
                    // invitation to an account (design note 0006, "Sign-up"); anyone else stays
                    // invited by address until they accept, so the share record never reveals who
                    // owns the address.
                    if let user = try reader.user(emailAddress: email), user.isDiscoverable, user.isEmailVerified {
                        found[email] = user.userRecordName
                    }
                }
                return found
            }
        }
        return ShareAdmission(
            owner: context.database.owner, caller: context.caller, scope: context.database.scope, usersByEmail: users,
            makeShortGUID: Self.makeShortGUID, makeParticipantID: configuration.makeRecordName
        )
    }

    /// A new short GUID: 144 random bits, base64url.
    @Sendable static func makeShortGUID() throws -> String {
        try SecureRandom.base64URLToken(byteCount: 18)
    }

    /// `records/resolve` and `records/accept` (public database, signed-in user; Apple's CloudKit Web Services Reference: “records/resolve”, “records/accept”).
    func resolveShares(_ context: RequestContext, accept: Bool) async throws -> HTTPResponse {
        let scope = context.database.scope
        guard scope == .public else {
            throw ServiceError.badRequest("endpoint not applicable in the database type '\(scope == .private ? "privatedb" : "sharedb")'")
        }
        let request = try context.decode(RecordsResolve.Request.self)
        let limit = configuration.limits.maximumResultsPerResponse
        guard request.shortGUIDs.count <= limit else {
            throw ServiceError.badRequest("a request may name at most \(limit) short GUIDs; this one names \(request.shortGUIDs.count)")
        }
        let caller = context.caller
        // Invitations by address are matched only to a caller whose address is verified.
        let email = try await authenticator?.accounts.readAccounts { try $0.user(recordName: caller).flatMap { $0.isEmailVerified ? $0.emailAddress : nil } }
        let resolver = ShareResolver(
            caller: caller, email: email?.lowercased(), container: context.container, environment: context.environment,
            makeParticipantID: configuration.makeRecordName
        )
        let results: [ShortGUIDResult]
        if accept {
            results = try await store.write { tx in try request.shortGUIDs.map { try resolver.result($0, tx, writer: tx) } }
        } else {
            results = try await store.read { tx in try request.shortGUIDs.map { try resolver.result($0, tx, writer: nil) } }
        }
        return try context.encode(RecordsResolve.Response(results: results), numbersAsStrings: nil)
    }
}

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
