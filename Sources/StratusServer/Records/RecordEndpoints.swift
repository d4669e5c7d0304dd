import StratusHTTP
import StratusLogging
import StratusWire

/// `records/modify`, `records/lookup` and `records/query`.
struct RecordEndpoints: EndpointGroup {
    let store: any RecordStore
    let schemas: SchemaCache
    /// Seals query continuation markers.
    let tokens: TokenCodec
    let configuration: ServiceConfiguration
    let logger: Logger
    /// Asset fields are admitted (receipts checked, references counted) only while assets are on.
    let assetsEnabled: Bool
    /// The users a write invites to shares by address.
    let invitations: ShareInvitations
    /// Fans out the notifications a committed write queued.
    let fanout: PushFanout

    func register(on operations: inout DatabaseOperations) {
        operations.on(.recordsModify) { try await modifyRecords($0) }
        operations.on(.recordsLookup) { try await lookupRecords($0) }
        operations.on(.recordsQuery) { try await queryRecords($0) }
    }

    /// `records/lookup`: one result per requested name, `NOT_FOUND` for missing ones.
    func lookupRecords(_ context: DatabaseRequest) async throws -> HTTPResponse {
        let request = try context.decode(RecordsLookup.Request.self)
        let limit = configuration.limits.maximumResultsPerResponse
        guard request.records.count <= limit else {
            throw ServiceError.badRequest("a lookup may name at most \(limit) records; this one names \(request.records.count)")
        }
        let zoneName = try context.zoneName(of: request.zoneID)
        let database = context.database
        let uuid = context.requestID
        let caller = context.caller
        let policy = database.scope == .public ? ReadPolicy(schema: try await schemas.schema(for: context, in: store), context: context) : nil
        let results = try await store.read { tx -> [RecordResult] in
            let zone = try tx.zone(named: zoneName, in: database)
            return try request.records.map { item in
                guard let zone else {
                    if zoneName == ZoneID.defaultZoneName {
                        return .error(
                            ServiceError(.notFound, "record '\(item.recordName)' does not exist").recordError(recordName: item.recordName, uuid: uuid))
                    }
                    return .error(ServiceError(.zoneNotFound, "zone '\(zoneName)' does not exist").recordError(recordName: item.recordName, uuid: uuid))
                }
                // A record the caller may not read is answered exactly as a missing one, so a lookup
                // cannot tell that it exists.
                guard let record = try tx.record(named: item.recordName, inZone: zone.rowID), !record.isDeleted, policy?.allows(record) ?? true else {
                    return .error(ServiceError.recordNotFound(item.recordName, zoneName: zoneName).recordError(recordName: item.recordName, uuid: uuid))
                }
                var wire = RecordPresenter.wire(record, zone: zone, desiredKeys: item.desiredKeys ?? request.desiredKeys)
                try ShareDecoration.decorate(&wire, record, zone: zone, caller: caller, tx)
                return .record(wire)
            }
        }
        return try context.encode(RecordsLookup.Response(records: results), numbersAsStrings: request.numbersAsStrings)
    }
}
