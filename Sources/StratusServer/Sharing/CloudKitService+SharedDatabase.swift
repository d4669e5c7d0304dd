import StratusCrypto
import StratusHTTP
import StratusWire

extension CloudKitService {
    /// What the shared database answers (Apple's CloudKit Web Services Reference: “Database scope rules”, “zones/list”): the zones other users shared
    /// with the caller, and their records, read and (with `READ_WRITE`) written.
    static let sharedDatabaseOperations: Set<EndpointOperation> = [
        .zonesList, .zonesLookup, .recordsLookup, .recordsQuery, .recordsChanges, .recordsModify, .changesZone, .changesDatabase,
    ]

    /// Answers a shared-database request by checking the caller's share of the zone it names, then
    /// running the operation in the owner's private database on the caller's behalf.
    ///
    /// Access is checked on every request against the stored participants, so removing a
    /// participant or deleting the share takes effect on the next request.
    func handleShared(_ context: RequestContext) async throws -> HTTPResponse {
        switch context.operation {
        case .zonesList:
            let zones = try await sharedZones(context).map { ZoneResult.zone(wireZone($0.zone)) }
            return try context.encode(ZonesList.Response(zones: zones), numbersAsStrings: nil)
        case .zonesLookup:
            let request = try context.decode(ZonesLookup.Request.self)
            let reachable = try await sharedZones(context)
            let results = request.zones.map { zoneID -> ZoneResult in
                do {
                    return .zone(wireZone(try Self.pick(zoneID, from: reachable).zone))
                } catch let error as ServiceError {
                    return .error(error.zoneError(zoneID))
                } catch {
                    return .error(ServiceError(.internalError, "\(error)").zoneError(zoneID))
                }
            }
            return try context.encode(ZonesLookup.Response(zones: results), numbersAsStrings: nil)
        case .changesZone:
            return try await sharedZoneChanges(context)
        case .changesDatabase:
            return try await sharedDatabaseChanges(context)
        default:
            let target = try context.decode(SharedZoneTarget.self)
            if context.operation == .recordsQuery, target.zoneID == nil {
                throw ServiceError.badRequest("queries in the shared database need a zoneID: zone-wide queries are not supported there")
            }
            let reachable = try await sharedZones(context)
            let shared = try Self.pick(target.zoneID ?? .defaultZone, from: reachable)
            let delegated = context.acting(in: shared.zone.database)
            if !shared.zoneWide {
                return try await handleRecordShared(delegated, shared: shared)
            }
            switch context.operation {
            case .recordsLookup: return try await lookupRecords(delegated)
            case .recordsQuery: return try await queryRecords(delegated)
            case .recordsChanges: return try await recordChanges(delegated)
            default:
                guard shared.permission == .readWrite else {
                    throw ServiceError(
                        .accessDenied,
                        "zone '\(shared.zone.zoneName)' of '\(shared.zone.database.owner)' is shared with you read-only; ask its owner for READ_WRITE"
                    )
                }
                return try await modifyRecords(delegated)
            }
        }
    }

    /// `changes/zone` in the shared database: each zone's feed, read in its owner's private database
    /// (in a zone reached through record shares only, the hierarchies' changes).
    private func sharedZoneChanges(_ context: RequestContext) async throws -> HTTPResponse {
        let request = try context.decode(ZoneChanges.Request.self)
        let reachable = try await sharedZones(context)
        var results: [ZoneChanges.ZoneResult] = []
        for options in request.zones {
            do {
                let shared = try Self.pick(options.zoneID, from: reachable)
                let page = try await zoneChangesPage(
                    context.acting(in: shared.zone.database), zoneID: options.zoneID, token: options.syncToken,
                    limit: try resultsLimit(options.resultsLimit ?? request.resultsLimit),
                    desiredKeys: options.desiredKeys ?? request.desiredKeys,
                    recordTypes: (options.desiredRecordTypes ?? request.desiredRecordTypes).map(Set.init),
                    view: shared.zoneWide ? nil : ShareHierarchy.feedView(roots: Set(shared.roots.keys))
                )
                results.append(
                    .changes(ZoneChanges.ZoneRecords(zoneID: page.zoneID, records: page.records, syncToken: page.syncToken, moreComing: page.moreComing))
                )
            } catch let error as ServiceError {
                results.append(.error(error.zoneError(options.zoneID)))
            }
        }
        return try context.encode(ZoneChanges.Response(zones: results), numbersAsStrings: request.numbersAsStrings)
    }

    /// `changes/database` in the shared database: zones shared with the caller that changed, appeared
    /// or went away (`deleted`) since the token; a zone reached through record shares only counts as
    /// changed when its hierarchies' feed has something to show. The token lists every reachable zone with its last
    /// change, so it grows with the number of shared zones; one page holds them all.
    private func sharedDatabaseChanges(_ context: RequestContext) async throws -> HTTPResponse {
        let request = try context.decode(DatabaseChanges.Request.self)
        let digest = String(SHA256.hash("shared \(context.caller) \(context.container) \(context.environment.rawValue)").hexString.prefix(16))
        var known: [Int64: Int64] = [:]
        if let token = request.syncToken {
            guard let position = tokens.open(token.rawValue, kind: .sharedDatabaseSync, as: SharedDatabasePosition.self), position.d == digest else {
                throw ServiceError.badRequest("the sync token is not valid for this database; fetch again without a token to resync")
            }
            for pair in position.z where pair.count == 2 { known[pair[0]] = pair[1] }
        }
        let reachable = try await sharedZones(context)
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

    /// A zone reachable through accepted shares, with the best permission the caller has there.
    struct SharedZone: Sendable {
        var zone: ZoneRow
        var permission: SharePermission
        /// Whether a zone-wide share grants access to all of the zone's records.
        var zoneWide: Bool
        /// The roots of the record shares granting access in the zone, with the best permission of each.
        var roots: [String: SharePermission] = [:]
    }

    /// The live zones of the request's container and environment shared with the caller.
    private func sharedZones(_ context: RequestContext) async throws -> [SharedZone] {
        let caller = context.caller
        let container = context.container
        let environment = context.environment
        return try await store.read { tx -> [SharedZone] in
            let shares = tx
            var zones: [Int64: SharedZone] = [:]
            var order: [Int64] = []
            for grant in try shares.grants(of: caller) {
                let zoneWide = grant.rootRecordName == nil
                if var known = zones[grant.zoneRowID] {
                    if grant.permission == .readWrite, zoneWide || !known.zoneWide { known.permission = .readWrite }
                    known.zoneWide = known.zoneWide || zoneWide
                    if let root = grant.rootRecordName, known.roots[root] != .readWrite { known.roots[root] = grant.permission }
                    zones[grant.zoneRowID] = known
                    continue
                }
                guard let zone = try tx.zone(rowID: grant.zoneRowID), !zone.isDeleted, zone.database.scope == .private,
                    zone.database.container == container, zone.database.environment == environment
                else { continue }
                var shared = SharedZone(zone: zone, permission: grant.permission, zoneWide: zoneWide)
                if let root = grant.rootRecordName { shared.roots[root] = grant.permission }
                zones[grant.zoneRowID] = shared
                order.append(grant.zoneRowID)
            }
            return order.compactMap { zones[$0] }
        }
    }

    /// The one reachable zone a zone ID names; the owner may be left out when the name is unambiguous.
    private static func pick(_ zoneID: ZoneID, from zones: [SharedZone]) throws(ServiceError) -> SharedZone {
        let matches = zones.filter {
            $0.zone.zoneName == zoneID.zoneName && (zoneID.ownerRecordName == nil || zoneID.ownerRecordName == $0.zone.database.owner)
        }
        guard let first = matches.first else {
            throw ServiceError(.zoneNotFound, "zone '\(zoneID.zoneName)' has not been shared with you")
        }
        guard matches.count == 1 else {
            throw ServiceError.badRequest("more than one zone named '\(zoneID.zoneName)' is shared with you; give its ownerRecordName")
        }
        return first
    }
}

/// Where a shared database's change feed stands: each reachable zone's last record change.
struct SharedDatabasePosition: Codable, Hashable {
    /// A digest of the caller, container and environment, so a token works only for its feed.
    var d: String
    /// `[zone row ID, zone change sequence]` pairs.
    var z: [[Int64]]
}

/// The zone a shared-database request addresses.
private struct SharedZoneTarget: Decodable {
    var zoneID: ZoneID?
}

extension RequestContext {
    /// This request run in another database (a sharer's private database) by the same caller.
    func acting(in database: DatabaseKey) -> RequestContext {
        var context = RequestContext(
            request: request, operation: operation, database: database, caller: caller, principal: principal, deviceID: deviceID
        )
        context.assetLinks = assetLinks
        return context
    }
}
