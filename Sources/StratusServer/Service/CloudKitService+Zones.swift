import StratusHTTP
import StratusWire

extension CloudKitService {
    /// `zones/list`: every live zone of the database, the default zone always among them.
    func listZones(_ context: RequestContext) async throws -> HTTPResponse {
        let database = context.database
        let now = configuration.now()
        var zones = try await store.read { try $0.zones(in: database) }
        if !zones.contains(where: \.isDefaultZone) {
            _ = try await store.write { tx in try Self.zone(named: ZoneID.defaultZoneName, in: database, tx, createDefault: true, now: now) }
            zones = try await store.read { try $0.zones(in: database) }
        }
        return try context.encode(ZonesList.Response(zones: zones.map { .zone(wireZone($0)) }), numbersAsStrings: nil)
    }

    /// `zones/lookup`: one zone or `ZONE_NOT_FOUND` per requested zone ID.
    func lookupZones(_ context: RequestContext) async throws -> HTTPResponse {
        let request = try context.decode(ZonesLookup.Request.self)
        let database = context.database
        let now = configuration.now()
        let results = try await store.write { tx -> [ZoneResult] in
            try request.zones.map { zoneID in
                do {
                    let name = try context.zoneName(of: zoneID)
                    guard let zone = try Self.zone(named: name, in: database, tx, createDefault: true, now: now) else {
                        throw ServiceError(.zoneNotFound, "zone '\(name)' does not exist")
                    }
                    return .zone(self.wireZone(zone))
                } catch let error as ServiceError {
                    return .error(error.zoneError(zoneID))
                }
            }
        }
        return try context.encode(ZonesLookup.Response(zones: results), numbersAsStrings: nil)
    }

    /// `zones/modify`: creates and deletes custom zones; deleting a zone deletes its records.
    func modifyZones(_ context: RequestContext) async throws -> HTTPResponse {
        let request = try context.decode(ZonesModify.Request.self)
        let limit = configuration.limits.maximumOperationsPerRequest
        guard request.operations.count <= limit else {
            throw ServiceError.badRequest("a request may carry at most \(limit) operations; this one has \(request.operations.count)")
        }
        let database = context.database
        let now = configuration.now()
        let results = try await store.write { tx -> [ZoneResult] in
            try request.operations.map { operation in
                let zoneID = operation.zone.zoneID
                do {
                    return try tx.savepoint {
                        let name = try context.zoneName(of: zoneID)
                        switch operation.operationType {
                        case .create:
                            try Self.validate(zoneName: name)
                            if let existing = try tx.zone(named: name, in: database) { return .zone(self.wireZone(existing)) }
                            return .zone(self.wireZone(try tx.createZone(named: name, in: database, createdAt: now)))
                        case .delete:
                            guard name != ZoneID.defaultZoneName else {
                                throw ServiceError.badRequest("the default zone cannot be deleted")
                            }
                            guard let zone = try tx.zone(named: name, in: database) else {
                                throw ServiceError(.zoneNotFound, "zone '\(name)' does not exist")
                            }
                            try tx.removeAssetReferences(inZone: zone.rowID, now: now)
                            try tx.deleteZone(zone)
                            var deleted = Zone(zoneID: zone.zoneID)
                            deleted.deleted = true
                            return .zone(deleted)
                        }
                    }
                } catch let error as ServiceError {
                    return .error(error.zoneError(zoneID))
                }
            }
        }
        return try context.encode(ZonesModify.Response(zones: results), numbersAsStrings: nil)
    }

    /// The zone dictionary: ID, current sync token, and whether atomic batches are honoured.
    func wireZone(_ zone: ZoneRow) -> Zone {
        Zone(zoneID: zone.zoneID, syncToken: zoneToken(zone, zone.changeSequence), atomic: !zone.isDefaultZone)
    }

    /// The sync token of `zone` at `sequence` (``ZoneFeedPosition``: the zone's incarnation and the sequence).
    func zoneToken(_ zone: ZoneRow, _ sequence: Int64, scope: String? = nil) -> SyncToken {
        SyncToken(tokens.seal(ZoneFeedPosition(zone: zone, sequence: sequence, scope: scope), kind: .zoneSync))
    }

    static func validate(zoneName name: String) throws(ServiceError) {
        guard !name.isEmpty, name.utf8.count <= 255, !name.hasPrefix("_"),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw .badRequest("zone name '\(name)' is invalid: use 1 to 255 bytes, not starting with '_'")
        }
    }
}
