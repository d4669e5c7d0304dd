import StratusHTTP
import StratusWire

extension CloudKitService {
    /// `records/query`: records of one type in a zone (or every zone), paged with a continuation marker.
    func queryRecords(_ context: RequestContext) async throws -> HTTPResponse {
        let schema = try await schema(for: context)
        let request = try context.decode(RecordsQuery.Request.self, schema: schema)
        let limit = try resultsLimit(request.resultsLimit)
        guard schema.recordTypes[request.query.recordType] != nil else {
            throw ServiceError.badRequest("did not find record type '\(request.query.recordType)' in the \(context.environment.rawValue) schema")
        }
        guard (request.query.filterBy ?? []).isEmpty, (request.query.sortBy ?? []).isEmpty else {
            throw ServiceError.badRequest("query filters and sort descriptors are not supported yet")
        }
        let after: QueryCursor?
        if let marker = request.continuationMarker {
            guard let cursor = tokens.open(marker.rawValue, kind: .queryContinuation, as: QueryCursor.self) else {
                throw ServiceError.badRequest("the continuation marker is not valid for this server; run the query again without it")
            }
            after = cursor
        } else {
            after = nil
        }
        let database = context.database
        let zoneWide = request.zoneID == nil && (request.zoneWide ?? false)
        let zoneName = try context.zoneName(of: request.zoneID)
        let (records, zones) = try await store.read { tx -> ([StoredRecord], [Int64: ZoneRow]) in
            let zones = zoneWide ? try tx.zones(in: database) : try tx.zone(named: zoneName, in: database).map { [$0] } ?? []
            if zones.isEmpty, zoneName != ZoneID.defaultZoneName {
                throw ServiceError(.zoneNotFound, "zone '\(zoneName)' does not exist")
            }
            let plan = QueryPlan(zoneRowIDs: zones.map(\.rowID), recordType: request.query.recordType, limit: limit + 1, after: after)
            return (try tx.query(plan), Dictionary(uniqueKeysWithValues: zones.map { ($0.rowID, $0) }))
        }
        var page = records
        var marker: ContinuationMarker?
        if page.count > limit {
            page.removeLast(page.count - limit)
            if let last = page.last {
                marker = ContinuationMarker(tokens.seal(QueryCursor(sortValues: [], zoneRowID: last.zoneRowID, recordName: last.recordName), kind: .queryContinuation))
            }
        }
        let results = page.compactMap { record -> RecordResult? in
            zones[record.zoneRowID].map { .record(RecordPresenter.wire(record, zone: $0, desiredKeys: request.desiredKeys)) }
        }
        return try context.encode(RecordsQuery.Response(records: results, continuationMarker: marker), numbersAsStrings: request.numbersAsStrings)
    }
}
