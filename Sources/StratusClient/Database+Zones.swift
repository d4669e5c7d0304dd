public import StratusWire

extension Database {
    /// What ``modifyRecordZones(saving:deleting:)`` returns: a result per zone.
    public struct ZoneModifyResults: Sendable {
        /// The saved zone, or why it was not saved, by zone ID.
        public var saveResults: [ZoneID: Result<RecordZone, StratusError>]
        /// Whether each deletion succeeded, by zone ID.
        public var deleteResults: [ZoneID: Result<Void, StratusError>]
    }

    /// Creates a zone (saving an existing zone leaves it as it is).
    ///
    /// - Parameter zone: The zone.
    /// - Returns: The zone as the server has it, with its sync token.
    /// - Throws: ``StratusError``.
    ///
    /// CloudKit reference: zones/modify.
    @discardableResult
    public func save(_ zone: RecordZone) async throws -> RecordZone {
        let results = try await modifyRecordZones(saving: [zone], deleting: [])
        guard let result = results.saveResults[zone.zoneID] else {
            throw StratusError(.serverResponseLost, "the server did not answer for zone '\(zone.zoneID.zoneName)'")
        }
        return try result.get()
    }

    /// Deletes a zone and every record in it.
    ///
    /// - Parameter zoneID: The zone's ID.
    /// - Returns: The deleted zone's ID.
    /// - Throws: ``StratusError``; ``StratusError/Code/zoneNotFound`` when it does not exist.
    ///
    /// CloudKit reference: zones/modify.
    @discardableResult
    public func deleteRecordZone(withID zoneID: ZoneID) async throws -> ZoneID {
        let results = try await modifyRecordZones(saving: [], deleting: [zoneID])
        guard let result = results.deleteResults[zoneID] else {
            throw StratusError(.serverResponseLost, "the server did not answer for zone '\(zoneID.zoneName)'")
        }
        try result.get()
        return zoneID
    }

    /// Creates and deletes zones, with a result per zone.
    ///
    /// - Parameters:
    ///   - zonesToSave: Zones to create.
    ///   - zoneIDsToDelete: Zones to delete.
    /// - Returns: A result per zone.
    /// - Throws: ``StratusError`` when the whole request fails.
    ///
    /// CloudKit reference: zones/modify.
    public func modifyRecordZones(saving zonesToSave: [RecordZone], deleting zoneIDsToDelete: [ZoneID]) async throws -> ZoneModifyResults {
        let operations = zonesToSave.map { ZoneOperation.create($0.zoneID) } + zoneIDsToDelete.map { ZoneOperation.delete($0) }
        var results = ZoneModifyResults(saveResults: [:], deleteResults: [:])
        for chunk in Self.chunks(of: operations, size: Self.maximumOperationsPerRequest) {
            let response = try await client.send(ZonesModify.self, ZonesModify.Request(operations: chunk), database: scope, idempotent: false)
            guard response.zones.count == chunk.count else {
                throw StratusError(.serverResponseLost, "zones/modify answered \(response.zones.count) results for \(chunk.count) operations")
            }
            for (operation, result) in zip(chunk, response.zones) {
                let zoneID = operation.zone.zoneID
                switch (operation.operationType, result) {
                case (.create, .zone(let zone)): results.saveResults[zoneID] = .success(RecordZone(wire: zone))
                case (.create, .error(let error)): results.saveResults[zoneID] = .failure(StratusError(error, zoneID: zoneID))
                case (.delete, .zone): results.deleteResults[zoneID] = .success(())
                case (.delete, .error(let error)): results.deleteResults[zoneID] = .failure(StratusError(error, zoneID: zoneID))
                }
            }
        }
        return results
    }

    /// Fetches one zone.
    ///
    /// - Parameter zoneID: The zone's ID.
    /// - Returns: The zone, with its current sync token.
    /// - Throws: ``StratusError``; ``StratusError/Code/zoneNotFound`` when it does not exist.
    ///
    /// CloudKit reference: zones/lookup.
    public func recordZone(for zoneID: ZoneID) async throws -> RecordZone {
        guard let result = try await recordZones(for: [zoneID])[zoneID] else {
            throw StratusError(.serverResponseLost, "the server did not answer for zone '\(zoneID.zoneName)'")
        }
        return try result.get()
    }

    /// Fetches zones by ID.
    ///
    /// - Parameter zoneIDs: The zones' IDs.
    /// - Returns: Each zone or its error, by ID.
    /// - Throws: ``StratusError`` when the whole request fails.
    ///
    /// CloudKit reference: zones/lookup.
    public func recordZones(for zoneIDs: [ZoneID]) async throws -> [ZoneID: Result<RecordZone, StratusError>] {
        var results: [ZoneID: Result<RecordZone, StratusError>] = [:]
        for chunk in Self.chunks(of: zoneIDs, size: Self.maximumResultsPerResponse) {
            let response = try await client.send(ZonesLookup.self, ZonesLookup.Request(zones: chunk), database: scope, idempotent: true)
            guard response.zones.count == chunk.count else {
                throw StratusError(.serverResponseLost, "zones/lookup answered \(response.zones.count) results for \(chunk.count) zones")
            }
            for (zoneID, result) in zip(chunk, response.zones) {
                switch result {
                case .zone(let zone): results[zoneID] = .success(RecordZone(wire: zone))
                case .error(let error): results[zoneID] = .failure(StratusError(error, zoneID: zoneID))
                }
            }
        }
        return results
    }

    /// Every zone of the database.
    ///
    /// - Returns: The zones, in the server's order.
    /// - Throws: ``StratusError``, also when the server reports a zone as an error.
    ///
    /// CloudKit reference: zones/list.
    public func allRecordZones() async throws -> [RecordZone] {
        let response = try await client.send(ZonesList.self, EmptyBody(), database: scope, idempotent: true)
        return try response.zones.map { result throws(StratusError) in
            switch result {
            case .zone(let zone): return RecordZone(wire: zone)
            case .error(let error): throw StratusError(error, zoneID: nil)
            }
        }
    }
}
