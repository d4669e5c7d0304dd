import StratusHTTP
import StratusWire

extension CloudKitService {
    /// `records/query`: records of one type matching the filters, in the sort order, one page at a time.
    ///
    /// The ``QueryPlanner`` checks the query against the schema; the store runs the
    /// plan on its indexes. Paging is by keyset: the continuation marker seals the
    /// last record's sort values, zone and name plus a fingerprint of the query, so
    /// records added, changed or deleted between pages never make a page skip or
    /// repeat a record that stayed in place, and a marker cannot be replayed with
    /// another query.
    func queryRecords(_ context: RequestContext) async throws -> HTTPResponse {
        let schema = try await schema(for: context)
        let request = try context.decode(RecordsQuery.Request.self, schema: schema)
        let limit = try resultsLimit(request.resultsLimit)
        var plan = try QueryPlanner(schema: schema, environment: context.environment).plan(request.query, limit: limit)
        let zoneWide = request.zoneID == nil && (request.zoneWide ?? false)
        let zoneName = try context.zoneName(of: request.zoneID)
        let database = context.database
        let fingerprint = QueryContinuation.fingerprint(
            database: database, zones: zoneWide ? "zoneWide" : "zone:" + zoneName, query: request.query
        )
        if let marker = request.continuationMarker {
            guard let continuation = tokens.open(marker.rawValue, kind: .queryContinuation, as: QueryContinuation.self) else {
                throw ServiceError.badRequest("the continuation marker is not valid for this server; run the query again without it")
            }
            guard continuation.f == fingerprint, continuation.c.sortValues.count == plan.sorts.count else {
                throw ServiceError.badRequest(
                    "the continuation marker belongs to a different query; send it with the same query, zone and database that returned it"
                )
            }
            plan.after = continuation.c
        }
        let planned = plan
        let (page, zones) = try await store.read { tx -> (QueryPage, [Int64: ZoneRow]) in
            let zones = zoneWide ? try tx.zones(in: database) : try tx.zone(named: zoneName, in: database).map { [$0] } ?? []
            if zones.isEmpty, !zoneWide, zoneName != ZoneID.defaultZoneName {
                throw ServiceError(.zoneNotFound, "zone '\(zoneName)' does not exist")
            }
            var plan = planned
            plan.zoneRowIDs = zones.map(\.rowID)
            let page = plan.zoneRowIDs.isEmpty ? QueryPage(records: [], next: nil) : try tx.query(plan)
            return (page, Dictionary(uniqueKeysWithValues: zones.map { ($0.rowID, $0) }))
        }
        let marker = page.next.map {
            ContinuationMarker(tokens.seal(QueryContinuation(f: fingerprint, c: $0), kind: .queryContinuation))
        }
        let results = page.records.compactMap { record -> RecordResult? in
            zones[record.zoneRowID].map { .record(RecordPresenter.wire(record, zone: $0, desiredKeys: request.desiredKeys)) }
        }
        return try context.encode(RecordsQuery.Response(records: results, continuationMarker: marker), numbersAsStrings: request.numbersAsStrings)
    }
}
