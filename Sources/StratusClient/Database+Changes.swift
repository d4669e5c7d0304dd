import Foundation
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
        let body = try await zoneChangesBody(zoneID, since: token, desiredKeys: desiredKeys, resultsLimit: resultsLimit)
        return try zoneChangesPage(body, zoneID: zoneID, hadToken: token != nil)
    }

    /// Sends one `changes/zone` request for one zone; returns its answer's body, not yet decoded.
    func zoneChangesBody(_ zoneID: ZoneID, since token: SyncToken?, desiredKeys: [String]?, resultsLimit: Int?) async throws -> Data {
        let request = ZoneChanges.Request(
            zones: [ZoneChanges.ZoneOptions(zoneID: zoneID, syncToken: token, resultsLimit: resultsLimit, desiredKeys: desiredKeys)])
        do {
            return try await client.sendForBody(ZoneChanges.self, request, database: scope, idempotent: true)
        } catch let error as StratusError {
            throw Self.tokenAware(error, hadToken: token != nil)
        }
    }

    /// Decodes a one-zone `changes/zone` answer (`hadToken`: the request carried a sync token).
    func zoneChangesPage(_ body: Data, zoneID: ZoneID, hadToken: Bool) throws -> RecordZoneChanges {
        let response = try client.decode(ZoneChanges.self, body)
        guard response.zones.count == 1, let result = response.zones.first else {
            throw StratusError(.serverResponseLost, "changes/zone answered \(response.zones.count) zones for 1")
        }
        switch result {
        case .error(let error):
            throw Self.tokenAware(StratusError(error, zoneID: zoneID), hadToken: hadToken)
        case .changes(let page):
            var changes = RecordZoneChanges(modificationResultsByID: [:], deletions: [], changeToken: page.syncToken, moreComing: page.moreComing)
            changes.modificationResultsByID.reserveCapacity(page.records.count)
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
