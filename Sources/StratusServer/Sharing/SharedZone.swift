import StratusWire

/// A zone reachable through accepted shares, with the best permission the caller has there.
struct SharedZone: Sendable {
    var zone: ZoneRow
    var permission: SharePermission
    /// Whether a zone-wide share grants access to all of the zone's records.
    var zoneWide: Bool
    /// The roots of the record shares granting access in the zone, with the best permission of each.
    var roots: [String: SharePermission] = [:]
}

extension SharedZone {
    /// The live zones of the request's container and environment shared with the caller.
    static func reachable(by context: DatabaseRequest, in store: any RecordStore) async throws -> [SharedZone] {
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
    static func pick(_ zoneID: ZoneID, from zones: [SharedZone]) throws(ServiceError) -> SharedZone {
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
