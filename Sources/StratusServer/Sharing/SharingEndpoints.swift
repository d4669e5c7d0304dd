import StratusHTTP
import StratusWire

/// The shared database, and share invitations: `zones/list`, `zones/lookup`, `records/lookup`,
/// `records/query`, `records/changes`, `records/modify`, `changes/zone` and `changes/database` in
/// the shared database (Apple's CloudKit Web Services Reference: “Database scope rules”,
/// “zones/list”) — the zones other users shared with the caller, and their records, read and
/// (with `READ_WRITE`) written — and `records/resolve` and `records/accept`.
///
/// A shared-database request is answered by checking the caller's share of the zone it names,
/// then running the operation in the owner's private database on the caller's behalf, with the
/// records, zones and changes groups. Access is checked on every request against the stored
/// participants, so removing a participant or deleting the share takes effect on the next request.
struct SharingEndpoints: EndpointGroup {
    let store: any RecordStore
    let schemas: SchemaCache
    /// Seals the shared database's sync tokens.
    let tokens: TokenCodec
    let configuration: ServiceConfiguration
    /// Users, for the caller's verified address; `nil` in open mode.
    let accounts: (any AccountStore)?
    let records: RecordEndpoints
    let changes: ChangeEndpoints
    let presenter: ZonePresenter

    func register(on operations: inout DatabaseOperations) {
        operations.onShared(.zonesList) { try await sharedZonesList($0) }
        operations.onShared(.zonesLookup) { try await sharedZonesLookup($0) }
        operations.onShared(.changesZone) { try await sharedZoneChanges($0) }
        operations.onShared(.changesDatabase) { try await sharedDatabaseChanges($0) }
        operations.onShared(.recordsLookup, .recordsQuery, .recordsChanges, .recordsModify) { try await inSharedZone($0) }
        operations.on(.recordsResolve) { try await resolveShares($0, accept: false) }
        operations.on(.recordsAccept) { try await resolveShares($0, accept: true) }
    }

    /// `zones/list` in the shared database: the zones shared with the caller.
    private func sharedZonesList(_ context: DatabaseRequest) async throws -> HTTPResponse {
        let zones = try await SharedZone.reachable(by: context, in: store).map { ZoneResult.zone(presenter.wire($0.zone)) }
        return try context.encode(ZonesList.Response(zones: zones), numbersAsStrings: nil)
    }

    /// `zones/lookup` in the shared database: `ZONE_NOT_FOUND` for a zone not shared with the caller.
    private func sharedZonesLookup(_ context: DatabaseRequest) async throws -> HTTPResponse {
        let request = try context.decode(ZonesLookup.Request.self)
        let reachable = try await SharedZone.reachable(by: context, in: store)
        let results = request.zones.map { zoneID -> ZoneResult in
            do {
                return .zone(presenter.wire(try SharedZone.pick(zoneID, from: reachable).zone))
            } catch let error as ServiceError {
                return .error(error.zoneError(zoneID))
            } catch {
                return .error(ServiceError(.internalError, "\(error)").zoneError(zoneID))
            }
        }
        return try context.encode(ZonesLookup.Response(zones: results), numbersAsStrings: nil)
    }

    /// A records operation in a zone shared with the caller, run in its owner's database.
    private func inSharedZone(_ context: DatabaseRequest) async throws -> HTTPResponse {
        let target = try context.decode(SharedZoneTarget.self)
        if context.operation == .recordsQuery, target.zoneID == nil {
            throw ServiceError.badRequest("queries in the shared database need a zoneID: zone-wide queries are not supported there")
        }
        let reachable = try await SharedZone.reachable(by: context, in: store)
        let shared = try SharedZone.pick(target.zoneID ?? .defaultZone, from: reachable)
        let delegated = context.acting(in: shared.zone.database)
        if !shared.zoneWide {
            return try await inRecordShares(delegated, shared: shared)
        }
        switch context.operation {
        case .recordsLookup: return try await records.lookupRecords(delegated)
        case .recordsQuery: return try await records.queryRecords(delegated)
        case .recordsChanges: return try await changes.recordChanges(delegated)
        default:
            guard shared.permission == .readWrite else {
                throw ServiceError(
                    .accessDenied,
                    "zone '\(shared.zone.zoneName)' of '\(shared.zone.database.owner)' is shared with you read-only; ask its owner for READ_WRITE"
                )
            }
            return try await records.modifyRecords(delegated)
        }
    }

    /// `records/resolve` and `records/accept` (public database, signed-in user; Apple's CloudKit Web Services Reference: “records/resolve”, “records/accept”).
    func resolveShares(_ context: DatabaseRequest, accept: Bool) async throws -> HTTPResponse {
        let scope = context.database.scope
        guard scope == .public else {
            throw ServiceError.badRequest("endpoint not applicable in the database type '\(scope == .private ? "privatedb" : "sharedb")'")
        }
        let request = try context.decode(RecordsResolve.Request.self)
        let limit = configuration.limits.maximumResultsPerResponse
        guard request.shortGUIDs.count <= limit else {
            throw ServiceError.badRequest("a request may name at most \(limit) short GUIDs; this one names \(request.shortGUIDs.count)")
        }
        let caller = context.caller
        // Invitations by address are matched only to a caller whose address is verified.
        let email = try await accounts?.readAccounts { try $0.user(recordName: caller).flatMap { $0.isEmailVerified ? $0.emailAddress : nil } }
        let resolver = ShareResolver(
            caller: caller, email: email?.lowercased(), container: context.container, environment: context.environment,
            makeParticipantID: configuration.makeRecordName
        )
        let results: [ShortGUIDResult]
        if accept {
            results = try await store.write { tx in try request.shortGUIDs.map { try resolver.result($0, tx, writer: tx) } }
        } else {
            results = try await store.read { tx in try request.shortGUIDs.map { try resolver.result($0, tx, writer: nil) } }
        }
        return try context.encode(RecordsResolve.Response(results: results), numbersAsStrings: nil)
    }
}

/// The zone a shared-database request addresses.
private struct SharedZoneTarget: Decodable {
    var zoneID: ZoneID?
}
