public import StratusWire

extension Database {
    /// A record deleted from a zone, as a change feed reports it.
    public struct Deletion: Hashable, Sendable {
        /// The deleted record.
        public var recordID: RecordID
        /// Its record type, when the server says.
        public var recordType: String?
    }

    /// One page of a zone's changes (`recordZoneChanges(inZoneWith:since:)`).
    public struct RecordZoneChanges: Sendable {
        /// Each changed record in its latest state, or the error the server reported for it.
        public var modificationResultsByID: [RecordID: Result<Record, StratusError>]
        /// Records deleted since the token.
        public var deletions: [Deletion]
        /// Where this page ends: pass it as `since` next time.
        public var changeToken: SyncToken
        /// Whether more changes are waiting (call again with ``changeToken``).
        public var moreComing: Bool

        /// The changed records; throws the first per-record error.
        ///
        /// - Returns: The records.
        /// - Throws: The first ``StratusError`` in ``modificationResultsByID``.
        public func modifications() throws(StratusError) -> [Record] {
            try modificationResultsByID.values.map { (result) throws(StratusError) -> Record in try result.get() }
        }
    }

    /// One page of the database's zone changes (`databaseChanges(since:)`).
    public struct DatabaseZoneChanges: Sendable {
        /// Zones created or changed since the token.
        public var modifications: [ZoneID]
        /// Zones deleted since the token.
        public var deletions: [ZoneID]
        /// Where this page ends: pass it as `since` next time.
        public var changeToken: SyncToken
        /// Whether more changes are waiting.
        public var moreComing: Bool
    }

    /// Fetches one page of a custom zone's changes since a token.
    ///
    /// - Parameters:
    ///   - zoneID: The zone.
    ///   - token: Where the last fetch ended; `nil` fetches every live record.
    ///   - desiredKeys: The fields to fetch; `nil` fetches all.
    ///   - resultsLimit: The most changes in the page.
    /// - Returns: Modifications, deletions, the new token and whether more is coming.
    /// - Throws: ``StratusError``: ``StratusError/Code/zoneNotFound``, or
    ///   ``StratusError/Code/changeTokenExpired`` when the server no longer accepts `token`.
    ///
    /// CloudKit reference: changes/zone.
    public func recordZoneChanges(
        inZoneWith zoneID: ZoneID, since token: SyncToken?, desiredKeys: [String]? = nil, resultsLimit: Int? = nil
    ) async throws -> RecordZoneChanges {
        let request = ZoneChanges.Request(
            zones: [ZoneChanges.ZoneOptions(zoneID: zoneID, syncToken: token, resultsLimit: resultsLimit, desiredKeys: desiredKeys)])
        let response: ZoneChanges.Response
        do {
            response = try await client.send(ZoneChanges.self, request, database: scope, idempotent: true)
        } catch let error as StratusError {
            throw Self.tokenAware(error, hadToken: token != nil)
        }
        guard response.zones.count == 1, let result = response.zones.first else {
            throw StratusError(.serverResponseLost, "changes/zone answered \(response.zones.count) zones for 1")
        }
        switch result {
        case .error(let error):
            throw Self.tokenAware(StratusError(error, zoneID: zoneID), hadToken: token != nil)
        case .changes(let page):
            var changes = RecordZoneChanges(modificationResultsByID: [:], deletions: [], changeToken: page.syncToken, moreComing: page.moreComing)
            for entry in page.records {
                switch entry {
                case .record(let wire):
                    guard let name = wire.recordName else {
                        throw StratusError(.serverResponseLost, "changes/zone returned a record without a recordName")
                    }
                    let id = RecordID(recordName: name, zoneID: zoneID)
                    if wire.isDeleted {
                        changes.deletions.append(Deletion(recordID: id, recordType: wire.recordType))
                    } else {
                        changes.modificationResultsByID[id] = Self.recordResult(entry, recordID: id, clientRecord: nil)
                    }
                case .error(let error):
                    let id = RecordID(recordName: error.recordName ?? "", zoneID: zoneID)
                    changes.modificationResultsByID[id] = .failure(StratusError(error, recordID: id))
                }
            }
            return changes
        }
    }

    /// Fetches every change of a zone since a token (or the next `limit` of them), page after page,
    /// merged into one result.
    ///
    /// A record modified and later deleted appears only as a deletion, and the reverse.
    ///
    /// With `limit`, it stops after the first page that brings the merged changes to `limit` or more,
    /// and ``RecordZoneChanges/moreComing`` says whether the feed goes on from the returned token:
    /// a long feed read in parts, each ending on a page boundary.
    ///
    /// ```swift
    /// import StratusClient
    ///
    /// func readInParts(_ database: Database, zone: ZoneID) async throws {
    ///     var token: SyncToken? = nil
    ///     var more = true
    ///     while more {
    ///         let part = try await database.allRecordZoneChanges(inZoneWith: zone, since: token, limit: 2_000)
    ///         print(part.modificationResultsByID.count, "changes")  // store them, then remember the token
    ///         token = part.changeToken
    ///         more = part.moreComing
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - zoneID: The zone.
    ///   - token: Where the last fetch ended; `nil` fetches every live record.
    ///   - desiredKeys: The fields to fetch; `nil` fetches all.
    ///   - limit: Stop once this many changes (modifications and deletions) are merged; `nil` reads to the end.
    /// - Returns: The changes with the token where they end (``RecordZoneChanges/moreComing`` is `false`
    ///   at the end of the feed).
    /// - Throws: ``StratusError``, also when the server says more is coming but does not move the token.
    public func allRecordZoneChanges(
        inZoneWith zoneID: ZoneID, since token: SyncToken?, desiredKeys: [String]? = nil, limit: Int? = nil
    ) async throws -> RecordZoneChanges {
        var page = try await recordZoneChanges(inZoneWith: zoneID, since: token, desiredKeys: desiredKeys)
        var merged = page
        var deleted = Dictionary(page.deletions.map { ($0.recordID, $0) }, uniquingKeysWith: { $1 })
        while page.moreComing, merged.modificationResultsByID.count + deleted.count < limit ?? .max {
            let previous = page.changeToken
            page = try await recordZoneChanges(inZoneWith: zoneID, since: previous, desiredKeys: desiredKeys)
            guard page.changeToken != previous || !page.moreComing else {
                throw StratusError(.serverResponseLost, "changes/zone said more is coming but did not move the sync token")
            }
            for (id, result) in page.modificationResultsByID {
                merged.modificationResultsByID[id] = result
                deleted[id] = nil
            }
            for deletion in page.deletions {
                merged.modificationResultsByID[deletion.recordID] = nil
                deleted[deletion.recordID] = deletion
            }
        }
        merged.deletions = deleted.values.sorted { $0.recordID.recordName < $1.recordID.recordName }
        merged.changeToken = page.changeToken
        merged.moreComing = page.moreComing
        return merged
    }

    /// Fetches one page of the zones changed in the database since a token.
    ///
    /// - Parameters:
    ///   - token: Where the last fetch ended; `nil` lists every zone.
    ///   - resultsLimit: The most zones in the page.
    /// - Returns: Changed and deleted zones, the new token and whether more is coming.
    /// - Throws: ``StratusError``; ``StratusError/Code/changeTokenExpired`` when `token` is no longer valid.
    ///
    /// CloudKit reference: changes/database.
    public func databaseChanges(since token: SyncToken?, resultsLimit: Int? = nil) async throws -> DatabaseZoneChanges {
        let response: DatabaseChanges.Response
        do {
            response = try await client.send(
                DatabaseChanges.self, DatabaseChanges.Request(syncToken: token, resultsLimit: resultsLimit), database: scope,
                idempotent: true)
        } catch let error as StratusError {
            throw Self.tokenAware(error, hadToken: token != nil)
        }
        var changes = DatabaseZoneChanges(modifications: [], deletions: [], changeToken: response.syncToken, moreComing: response.moreComing)
        for result in response.zones {
            switch result {
            case .zone(let zone) where zone.deleted == true: changes.deletions.append(zone.zoneID)
            case .zone(let zone): changes.modifications.append(zone.zoneID)
            case .error(let error): throw StratusError(error, zoneID: nil)
            }
        }
        return changes
    }

    /// Fetches every zone change since a token, page after page.
    ///
    /// - Parameter token: Where the last fetch ended; `nil` lists every zone.
    /// - Returns: All changed and deleted zones with the final token.
    /// - Throws: ``StratusError``.
    public func allDatabaseChanges(since token: SyncToken?) async throws -> DatabaseZoneChanges {
        var page = try await databaseChanges(since: token)
        var modified = page.modifications
        var deleted = page.deletions
        while page.moreComing {
            let previous = page.changeToken
            page = try await databaseChanges(since: previous)
            guard page.changeToken != previous || !page.moreComing else {
                throw StratusError(.serverResponseLost, "changes/database said more is coming but did not move the sync token")
            }
            for zoneID in page.modifications where !modified.contains(zoneID) {
                modified.append(zoneID)
                deleted.removeAll { $0 == zoneID }
            }
            for zoneID in page.deletions where !deleted.contains(zoneID) {
                deleted.append(zoneID)
                modified.removeAll { $0 == zoneID }
            }
        }
        return DatabaseZoneChanges(modifications: modified, deletions: deleted, changeToken: page.changeToken, moreComing: false)
    }

    /// Turns a `BAD_REQUEST` about the sync token into ``StratusError/Code/changeTokenExpired``
    /// (Documentation/0002-record-store.md, “Tokens”: servers report invalid tokens as `BAD_REQUEST`).
    static func tokenAware(_ error: StratusError, hadToken: Bool) -> StratusError {
        guard hadToken, error.code == .invalidArguments, let reason = error.reason?.lowercased(), reason.contains("token") else {
            return error
        }
        var expired = error
        expired.code = .changeTokenExpired
        return expired
    }
}
