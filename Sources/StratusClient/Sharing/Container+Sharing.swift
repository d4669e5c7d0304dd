public import StratusWire

extension Share {
    /// What a short GUID leads to, from ``Container/shareMetadata(shortGUID:)`` and
    /// ``Container/acceptShare(shortGUID:)`` (`CKShare.Metadata`).
    public struct Metadata: Sendable {
        /// The short GUID.
        public var shortGUID: String
        /// Where the caller reaches the shared zone: `.private` for the owner, `.shared` for others.
        public var databaseScope: DatabaseScope?
        /// The shared zone, with its owner's record name: address it in ``Container/sharedCloudDatabase``.
        public var zoneID: ZoneID?
        /// The shared record; `nil` for a zone-wide share.
        public var rootRecordID: RecordID?
        /// The shared record, when the server sent it.
        public var rootRecord: Record?
        /// The share.
        public var share: Share?
        /// The share's owner.
        public var ownerIdentity: UserIdentity?
        /// The caller's permission.
        public var participantPermission: SharePermission?
        /// The caller's acceptance status (`ACCEPTED` after ``Container/acceptShare(shortGUID:)``).
        public var participantStatus: ParticipantAcceptanceStatus?
        /// The caller's role.
        public var participantType: ParticipantType?

        /// Creates metadata from the wire ShortGUID Result dictionary.
        ///
        /// - Parameters:
        ///   - wire: The dictionary.
        ///   - shortGUID: The short GUID asked for, when the dictionary does not repeat it.
        public init(wire: ShareMetadata, shortGUID: String) {
            self.shortGUID = wire.shortGUID ?? shortGUID
            databaseScope = wire.databaseScope.flatMap { DatabaseScope(rawValue: $0.lowercased()) }
            zoneID = wire.zoneID
            let zone = wire.zoneID ?? .defaultZone
            rootRecordID = wire.rootRecordName.map { RecordID(recordName: $0, zoneID: zone) }
            if let root = wire.rootRecord, let id = rootRecordID, let type = root.recordType {
                rootRecord = Record(wire: root, recordID: id, recordType: type)
            }
            if let share = wire.share, let name = share.recordName {
                self.share = Share(wire: share, recordID: RecordID(recordName: name, zoneID: zone), rootRecordID: rootRecordID)
            }
            ownerIdentity = wire.ownerIdentity
            participantPermission = wire.participantPermission
            participantStatus = wire.participantStatus
            participantType = wire.participantType
        }
    }
}

extension Container {
    /// Looks a share up by its short GUID without accepting it (a signed-in user is needed).
    ///
    /// - Parameters:
    ///   - shortGUID: The short GUID from the share's URL.
    ///   - fetchRootRecord: Whether to return the shared record too.
    /// - Returns: What the share leads to and the caller's place in it.
    /// - Throws: ``StratusError``; ``StratusError/Code/unknownItem`` for an unknown GUID,
    ///   ``StratusError/Code/permissionFailure`` when the caller is not invited.
    ///
    /// CloudKit reference: records/resolve.
    public func shareMetadata(shortGUID: String, fetchRootRecord: Bool = false) async throws -> Share.Metadata {
        try await resolve(RecordsResolve.self, shortGUID: shortGUID, fetchRootRecord: fetchRootRecord)
    }

    /// Accepts a share by its short GUID: its zone then appears in ``sharedCloudDatabase``.
    ///
    /// - Parameter shortGUID: The short GUID from the share's URL.
    /// - Returns: The share's metadata, the caller now `ACCEPTED`.
    /// - Throws: ``StratusError``; ``StratusError/Code/unknownItem`` for an unknown GUID,
    ///   ``StratusError/Code/permissionFailure`` when the caller is not invited.
    ///
    /// CloudKit reference: records/accept.
    @discardableResult
    public func acceptShare(shortGUID: String) async throws -> Share.Metadata {
        try await resolve(RecordsAccept.self, shortGUID: shortGUID, fetchRootRecord: false)
    }

    private func resolve<E: WireEndpoint>(
        _ endpoint: E.Type, shortGUID: String, fetchRootRecord: Bool
    ) async throws -> Share.Metadata where E.Request == RecordsResolve.Request, E.Response == RecordsResolve.Response {
        let request = RecordsResolve.Request(shortGUIDs: [ShortGUID(value: shortGUID, shouldFetchRootRecord: fetchRootRecord)])
        let response = try await client.send(E.self, request, database: .public, idempotent: true)
        guard let result = response.results.first, response.results.count == 1 else {
            throw StratusError(.serverResponseLost, "\(E.operation.rawValue) answered \(response.results.count) results for one short GUID")
        }
        switch result {
        case .share(let metadata):
            return Share.Metadata(wire: metadata, shortGUID: shortGUID)
        case .error(let error):
            let code = StratusError.Code(serverErrorCode: error.serverErrorCode, httpStatus: nil, reason: error.reason)
            var failure = StratusError(code, error.reason ?? "short GUID '\(shortGUID)' failed with \(error.serverErrorCode)")
            failure.serverErrorCode = error.serverErrorCode
            failure.reason = error.reason
            failure.retryAfter = error.retryAfter.map { .seconds($0) }
            throw failure
        }
    }

    // MARK: Users

    /// The signed-in user's identity: user record name, and name and e-mail when discoverable.
    ///
    /// - Returns: The identity.
    /// - Throws: ``StratusError``; ``StratusError/Code/notAuthenticated`` without a signed-in user.
    ///
    /// CloudKit reference: users/caller.
    public func userIdentity() async throws -> UserIdentity {
        try await client.send(UsersCaller.self, EmptyBody(), database: .public, idempotent: true).identity
    }

    /// The discoverable users with these e-mail addresses (others are left out).
    ///
    /// - Parameter emails: E-mail addresses.
    /// - Returns: The identities found.
    /// - Throws: ``StratusError``.
    ///
    /// CloudKit reference: users/discover.
    public func discoverUserIdentities(emails: [String]) async throws -> [UserIdentity] {
        try await discover(emails.map { UserLookupInfo(emailAddress: $0) })
    }

    /// The discoverable users with these user record names (others are left out).
    ///
    /// - Parameter userRecordNames: User record names.
    /// - Returns: The identities found.
    /// - Throws: ``StratusError``.
    ///
    /// CloudKit reference: users/discover.
    public func discoverUserIdentities(userRecordNames: [String]) async throws -> [UserIdentity] {
        try await discover(userRecordNames.map { UserLookupInfo(userRecordName: $0) })
    }

    private func discover(_ lookupInfos: [UserLookupInfo]) async throws -> [UserIdentity] {
        guard !lookupInfos.isEmpty else { return [] }
        let request = UsersDiscover.Request(lookupInfos: lookupInfos)
        return try await client.send(UsersDiscover.self, request, database: .public, idempotent: true).users
    }
}
