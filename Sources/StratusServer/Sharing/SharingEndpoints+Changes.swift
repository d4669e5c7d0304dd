import StratusCrypto
import StratusHTTP
import StratusWire

extension SharingEndpoints {
    /// `changes/zone` in the shared database: each zone's feed, read in its owner's private database
    /// (in a zone reached through record shares only, the hierarchies' changes).
    func sharedZoneChanges(_ context: DatabaseRequest) async throws -> HTTPResponse {
        let reachable = try await SharedZone.reachable(by: context, in: store)
        return try await changes.zoneChanges(context) { zoneID in
            let shared = try SharedZone.pick(zoneID, from: reachable)
            return (context.acting(in: shared.zone.database), shared.zoneWide ? nil : ShareHierarchy.feedView(roots: Set(shared.roots.keys)))
        }
    }

    /// `changes/database` in the shared database: zones shared with the caller that changed, appeared
    /// or went away (`deleted`) since the token; a zone reached through record shares only counts as
    /// changed when its hierarchies' feed has something to show. The token lists every reachable zone with its last
    /// change, so it grows with the number of shared zones; one page holds them all.
    func sharedDatabaseChanges(_ context: DatabaseRequest) async throws -> HTTPResponse {
        let request = try context.decode(DatabaseChanges.Request.self)
        let digest = String(SHA256.hash("shared \(context.caller) \(context.container) \(context.environment.rawValue)").hexString.prefix(16))
        var known: [Int64: Int64] = [:]
        if let token = request.syncToken {
            guard let position = tokens.open(token.rawValue, kind: .sharedDatabaseSync, as: SharedDatabasePosition.self), position.d == digest else {
                throw ServiceError.badRequest("the sync token is not valid for this database; fetch again without a token to resync")
            }
            for pair in position.z where pair.count == 2 { known[pair[0]] = pair[1] }
        }
        let reachable = try await SharedZone.reachable(by: context, in: store)
        var zones: [ZoneResult] = []
        for shared in reachable {
            if let position = known[shared.zone.rowID] {
                guard shared.zone.changeSequence > position else { continue }
                if !shared.zoneWide, try await !recordSharesChanged(shared, after: position) { continue }
            }
            zones.append(.zone(Zone(zoneID: shared.zone.zoneID)))
        }
        let current = Set(reachable.map(\.zone.rowID))
        let gone = known.keys.filter { !current.contains($0) }.sorted()
        if !gone.isEmpty {
            let rows = try await store.read { tx in try gone.compactMap { try tx.zone(rowID: $0) } }
            zones += rows.map { .zone(Zone(zoneID: $0.zoneID, deleted: true)) }
        }
        let position = SharedDatabasePosition(d: digest, z: reachable.map { [$0.zone.rowID, $0.zone.changeSequence] })
        let syncToken = SyncToken(tokens.seal(position, kind: .sharedDatabaseSync))
        return try context.encode(DatabaseChanges.Response(zones: zones, syncToken: syncToken, moreComing: false), numbersAsStrings: nil)
    }

    /// Whether a zone reached through record shares only has a change its participant's feed would
    /// show after `sequence` (up to the zone's position in `shared`): its changes are read in pages and
    /// filtered as the feed filters them, up to the first one shown.
    private func recordSharesChanged(_ shared: SharedZone, after sequence: Int64) async throws -> Bool {
        let view = ShareHierarchy.feedView(roots: Set(shared.roots.keys))
        let zone = shared.zone
        let pageSize = 200
        return try await store.read { tx in
            var after = sequence
            while after < zone.changeSequence {
                let changes = try tx.recordChanges(inZone: zone.rowID, after: after, limit: pageSize, recordTypes: nil)
                    .filter { $0.changeSequence <= zone.changeSequence }
                let through = changes.count == pageSize ? (changes.last?.changeSequence ?? zone.changeSequence) : zone.changeSequence
                let page = ZoneFeedPage(zoneRowID: zone.rowID, changes: changes, after: after, through: through, recordTypes: nil)
                if try !view.filter(page, tx).isEmpty { return true }
                guard changes.count == pageSize, let last = changes.last else { return false }
                after = last.changeSequence
            }
            return false
        }
    }
}

/// Where a shared database's change feed stands: each reachable zone's last record change.
struct SharedDatabasePosition: Codable, Hashable {
    /// A digest of the caller, container and environment, so a token works only for its feed.
    var d: String
    /// `[zone row ID, zone change sequence]` pairs.
    var z: [[Int64]]
}
