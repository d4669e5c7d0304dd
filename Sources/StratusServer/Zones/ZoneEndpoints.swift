import StratusHTTP
import StratusWire

/// `zones/list`, `zones/lookup` and `zones/modify`.
struct ZoneEndpoints: EndpointGroup {
    let store: any RecordStore
    let presenter: ZonePresenter
    let limits: ServiceLimits
    let now: @Sendable () -> Int64

    func register(on operations: inout DatabaseOperations) {
        operations.on(.zonesList) { try await listZones($0) }
        operations.on(.zonesLookup) { try await lookupZones($0) }
        operations.on(.zonesModify) { try await modifyZones($0) }
    }

    /// `zones/list`: every live zone of the database, the default zone always among them.
    func listZones(_ context: DatabaseRequest) async throws -> HTTPResponse {
        let database = context.database
        let now = self.now()
        var zones = try await store.read { try $0.zones(in: database) }
        if !zones.contains(where: \.isDefaultZone) {
            _ = try await store.write { tx in try tx.zoneCreatingDefault(named: ZoneID.defaultZoneName, in: database, now: now) }
            zones = try await store.read { try $0.zones(in: database) }
        }
        return try context.encode(ZonesList.Response(zones: zones.map { .zone(presenter.wire($0)) }), numbersAsStrings: nil)
    }

    /// `zones/lookup`: one zone or `ZONE_NOT_FOUND` per requested zone ID.
    func lookupZones(_ context: DatabaseRequest) async throws -> HTTPResponse {
        let request = try context.decode(ZonesLookup.Request.self)
        let database = context.database
        let now = self.now()
        let presenter = self.presenter
        let results = try await store.write { tx -> [ZoneResult] in
            try request.zones.map { zoneID in
                do {
                    let name = try context.zoneName(of: zoneID)
                    guard let zone = try tx.zoneCreatingDefault(named: name, in: database, now: now) else {
                        throw ServiceError(.zoneNotFound, "zone '\(name)' does not exist")
                    }
                    return .zone(presenter.wire(zone))
                } catch let error as ServiceError {
                    return .error(error.zoneError(zoneID))
                }
            }
        }
        return try context.encode(ZonesLookup.Response(zones: results), numbersAsStrings: nil)
    }

    /// `zones/modify`: creates and deletes custom zones; deleting a zone deletes its records.
    func modifyZones(_ context: DatabaseRequest) async throws -> HTTPResponse {
        let request = try context.decode(ZonesModify.Request.self)
        try limits.checkOperationCount(request.operations.count)
        let database = context.database
        let now = self.now()
        let presenter = self.presenter
        let results = try await store.write { tx -> [ZoneResult] in
            try request.operations.map { operation in
                let zoneID = operation.zone.zoneID
                do {
                    return try tx.savepoint {
                        let name = try context.zoneName(of: zoneID)
                        switch operation.operationType {
                        case .create: return .zone(presenter.wire(try Self.create(name, in: database, now: now, tx)))
                        case .delete: return .zone(try Self.delete(name, in: database, now: now, tx))
                        }
                    }
                } catch let error as ServiceError {
                    return .error(error.zoneError(zoneID))
                }
            }
        }
        return try context.encode(ZonesModify.Response(zones: results), numbersAsStrings: nil)
    }

    /// The zone `name`, made now unless it exists.
    private static func create(_ name: String, in database: DatabaseKey, now: Int64, _ tx: any RecordStoreWriter) throws -> ZoneRow {
        try validate(zoneName: name)
        if let existing = try tx.zone(named: name, in: database) { return existing }
        return try tx.createZone(named: name, in: database, createdAt: now)
    }

    /// Deletes the zone `name` with its records; the answer is the zone marked `deleted`.
    private static func delete(_ name: String, in database: DatabaseKey, now: Int64, _ tx: any RecordStoreWriter) throws -> Zone {
        guard name != ZoneID.defaultZoneName else {
            throw ServiceError.badRequest("the default zone cannot be deleted")
        }
        guard let zone = try tx.zone(named: name, in: database) else {
            throw ServiceError(.zoneNotFound, "zone '\(name)' does not exist")
        }
        try tx.deleteZoneAndContents(zone, now: now)
        var deleted = Zone(zoneID: zone.zoneID)
        deleted.deleted = true
        return deleted
    }

    static func validate(zoneName name: String) throws(ServiceError) {
        guard !name.isEmpty, name.utf8.count <= 255, !name.hasPrefix("_"),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw .badRequest("zone name '\(name)' is invalid: use 1 to 255 bytes, not starting with '_'")
        }
    }
}

/// How zones look on the wire: the zone dictionary, and the sync tokens of its change feed.
struct ZonePresenter: Sendable {
    let tokens: TokenCodec

    /// The zone dictionary: ID, current sync token, and whether atomic batches are honoured.
    func wire(_ zone: ZoneRow) -> Zone {
        Zone(zoneID: zone.zoneID, syncToken: token(zone, zone.changeSequence), atomic: !zone.isDefaultZone)
    }

    /// The sync token of `zone` at `sequence` (``ZoneFeedPosition``: the zone's incarnation and the sequence).
    func token(_ zone: ZoneRow, _ sequence: Int64, scope: String? = nil) -> SyncToken {
        SyncToken(tokens.seal(ZoneFeedPosition(zone: zone, sequence: sequence, scope: scope), kind: .zoneSync))
    }
}

extension RecordStoreWriter {
    /// Deletes a zone as `zones/modify` does: its records' asset references dropped, then the
    /// zone with its records (a tombstone stays in the database's change feed).
    ///
    /// - Parameters:
    ///   - zone: The zone.
    ///   - now: The time of the deletion, in milliseconds since 1970.
    public func deleteZoneAndContents(_ zone: ZoneRow, now: Int64) throws {
        try removeAssetReferences(inZone: zone.rowID, now: now)
        try deleteZone(zone)
    }

    /// The live zone named `name` in `database`; the default zone is created on first use.
    func zoneCreatingDefault(named name: String, in database: DatabaseKey, now: Int64) throws -> ZoneRow? {
        if let zone = try zone(named: name, in: database) { return zone }
        guard name == ZoneID.defaultZoneName else { return nil }
        return try createZone(named: name, in: database, createdAt: now)
    }
}
