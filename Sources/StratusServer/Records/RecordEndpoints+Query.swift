import StratusHTTP
import StratusLogging
import StratusWire

extension RecordEndpoints {
    /// `records/query`: records of one type matching the filters, in the sort order, one page at a time.
    ///
    /// The ``QueryPlanner`` checks the query against the schema; the caller's read policy
    /// joins the plan (``QueryPlan/createdBy`` for a creator-only type; nothing at all for a
    /// type the caller may not read), and the store runs the plan on its indexes, the policy
    /// inside the same statement. Paging is by keyset: the continuation marker seals (encrypts
    /// and authenticates, ``TokenCodec``) the last record's sort values, zone and name plus a
    /// fingerprint of the query and of the reader's view, so records added, changed or deleted
    /// between pages never make a page skip or repeat a record that stayed in place, a marker
    /// cannot be replayed with another query or by another reader, and it shows nothing.
    func queryRecords(_ context: DatabaseRequest) async throws -> HTTPResponse {
        var schema = try await schemas.schema(for: context, in: store)
        let request = try context.decode(RecordsQuery.Request.self, schema: schema)
        if context.environment == .development, QueryIndexing.enable(for: request.query, in: schema) != nil {
            schema = try await enableIndexes(for: request.query, context: context)
        }
        let limit = try configuration.limits.resultsLimit(request.resultsLimit)
        var plan = try QueryPlanner(schema: schema, environment: context.environment).plan(request.query, limit: limit)
        plan.candidateLimit = configuration.limits.maximumQueryCandidates
        let scope = ReadPolicy(schema: schema, context: context).scope(of: request.query.recordType)
        if case .createdBy(let user) = scope { plan.createdBy = user }
        let zoneWide = request.zoneID == nil && (request.zoneWide ?? false)
        let zoneName = try context.zoneName(of: request.zoneID)
        let database = context.database
        let fingerprint = QueryContinuation.fingerprint(
            database: database, zones: zoneWide ? "zoneWide" : "zone:" + zoneName, reader: scope.fingerprint, query: request.query
        )
        if let marker = request.continuationMarker {
            plan.after = try continuation(marker, fingerprint: fingerprint, sortCount: plan.sorts.count)
        }
        guard scope != .none else {
            return try context.encode(RecordsQuery.Response(records: [], continuationMarker: nil), numbersAsStrings: request.numbersAsStrings)
        }
        try await store.prepare(for: plan)
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
            // NB: the store applied the policy already; this only keeps a faulty back end from showing a hidden record.
            guard scope.includes(record) else { return nil }
            return zones[record.zoneRowID].map { .record(RecordPresenter.wire(record, zone: $0, desiredKeys: request.desiredKeys)) }
        }
        return try context.encode(RecordsQuery.Response(records: results, continuationMarker: marker), numbersAsStrings: request.numbersAsStrings)
    }

    /// The cursor a continuation marker seals, checked against the query it is sent with.
    ///
    /// - Throws: ``ServiceError`` `BAD_REQUEST` when the marker does not open (tampered, truncated,
    ///   from another server, or issued before markers were encrypted) or belongs to another query or reader.
    private func continuation(_ marker: ContinuationMarker, fingerprint: String, sortCount: Int) throws(ServiceError) -> QueryCursor {
        guard let continuation = tokens.open(marker.rawValue, kind: .queryContinuation, as: QueryContinuation.self) else {
            throw .badRequest("the continuation marker is not valid for this server (or has expired); run the query again without it")
        }
        guard continuation.f == fingerprint, continuation.c.sortValues.count == sortCount else {
            throw .badRequest(
                "the continuation marker belongs to a different query; send it with the same query, zone and database, as the same user, that returned it"
            )
        }
        return continuation.c
    }

    /// Development only: turns on the indexes a query needs (building them from the stored
    /// records) in one write transaction, so the query can run on them.
    private func enableIndexes(for query: Query, context: DatabaseRequest) async throws -> Schema {
        let container = context.container
        let environment = context.environment
        let schemas = self.schemas
        let (schema, changes, ticket) = try await store.write { tx -> (Schema, [QueryIndexing.Change], UInt64) in
            let current = try tx.schema(container: container, environment: environment)
            guard let enabled = QueryIndexing.enable(for: query, in: current) else { return (current, [], schemas.ticket()) }
            try tx.saveSchema(enabled.schema, container: container, environment: environment)
            // NB: the ticket is taken inside the transaction so cache updates land in commit order.
            return (enabled.schema, enabled.changes, schemas.ticket())
        }
        schemas.replace(schema, container: container, environment: environment, ticket: ticket)
        if !changes.isEmpty {
            logger.info(
                "development schema: turned on \(changes.map(\.description).joined(separator: ", ")) for a query",
                metadata: ["container": container, "request-id": context.requestID]
            )
        }
        return schema
    }
}
