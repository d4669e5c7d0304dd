import StratusHTTP
import StratusWire

/// `records/changes`, `changes/zone`, `changes/database` and `zones/changes` (deprecated).
struct ChangeEndpoints: EndpointGroup {
    let feed: ChangeFeed
    let limits: ServiceLimits

    func register(on operations: inout DatabaseOperations) {
        operations.on(.recordsChanges) { try await recordChanges($0) }
        operations.on(.changesZone) { try await zoneChanges($0) }
        operations.on(.changesDatabase) { try await databaseChanges($0) }
        operations.on(.zonesChanges) { try await zonesChanges($0) }
    }

    /// `records/changes`: one custom zone's changes since a sync token, as `view` shows them when given.
    func recordChanges(_ context: DatabaseRequest, view: ZoneFeedView? = nil) async throws -> HTTPResponse {
        let request = try context.decode(RecordsChanges.Request.self)
        let page = try await feed.zoneChangesPage(
            context, zoneID: request.zoneID, token: request.syncToken, limit: try limits.resultsLimit(request.resultsLimit),
            desiredKeys: request.desiredKeys, recordTypes: nil, view: view
        )
        let response = RecordsChanges.Response(records: page.records, syncToken: page.syncToken, moreComing: page.moreComing, reverse: false)
        return try context.encode(response, numbersAsStrings: request.numbersAsStrings)
    }

    /// `changes/zone`: several zones' changes; a failing zone does not fail the others.
    func zoneChanges(_ context: DatabaseRequest) async throws -> HTTPResponse {
        try await zoneChanges(context) { _ in (context, nil) }
    }

    /// `changes/zone`, each zone's feed read in the database and through the view `locate` gives
    /// for its zone ID (the shared database: the owner's private database, a participant's view).
    ///
    /// - Parameter locate: The request to read a zone's feed as, and the view of it; throws a
    ///   ``ServiceError`` that becomes the zone's result.
    func zoneChanges(
        _ context: DatabaseRequest, locate: (ZoneID) throws -> (DatabaseRequest, ZoneFeedView?)
    ) async throws -> HTTPResponse {
        let request = try context.decode(ZoneChanges.Request.self)
        var results: [ZoneChanges.ZoneResult] = []
        for options in request.zones {
            do {
                let (reader, view) = try locate(options.zoneID)
                let page = try await feed.zoneChangesPage(
                    reader, zoneID: options.zoneID, token: options.syncToken,
                    limit: try limits.resultsLimit(options.resultsLimit ?? request.resultsLimit),
                    desiredKeys: options.desiredKeys ?? request.desiredKeys,
                    recordTypes: (options.desiredRecordTypes ?? request.desiredRecordTypes).map(Set.init), view: view
                )
                results.append(
                    .changes(ZoneChanges.ZoneRecords(zoneID: page.zoneID, records: page.records, syncToken: page.syncToken, moreComing: page.moreComing)))
            } catch let error as ServiceError {
                results.append(.error(error.zoneError(options.zoneID)))
            }
        }
        return try context.encode(ZoneChanges.Response(zones: results), numbersAsStrings: request.numbersAsStrings)
    }

    /// `zones/changes` (deprecated): zones changed since a `metaSyncToken`, as full zone dictionaries.
    func zonesChanges(_ context: DatabaseRequest) async throws -> HTTPResponse {
        let request = try context.decode(ZonesChanges.Request.self)
        let page = try await feed.databaseChangesPage(context, token: request.metaSyncToken, limit: try limits.resultsLimit(request.resultsLimit))
        let zones = page.zones.map { zone -> ZoneResult in
            guard !zone.isDeleted else { return .zone(Zone(zoneID: zone.zoneID, deleted: true)) }
            return .zone(feed.presenter.wire(zone))
        }
        return try context.encode(ZonesChanges.Response(zones: zones, metaSyncToken: page.syncToken, moreComing: page.moreComing), numbersAsStrings: nil)
    }

    /// `changes/database`: zones changed since a sync token, as bare zone IDs (`deleted` for removed ones).
    func databaseChanges(_ context: DatabaseRequest) async throws -> HTTPResponse {
        let request = try context.decode(DatabaseChanges.Request.self)
        let page = try await feed.databaseChangesPage(context, token: request.syncToken, limit: try limits.resultsLimit(request.resultsLimit))
        let zones = page.zones.map { zone -> ZoneResult in
            .zone(Zone(zoneID: zone.zoneID, deleted: zone.isDeleted ? true : nil))
        }
        return try context.encode(DatabaseChanges.Response(zones: zones, syncToken: page.syncToken, moreComing: page.moreComing), numbersAsStrings: nil)
    }
}
