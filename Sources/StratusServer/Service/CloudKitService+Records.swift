import StratusHTTP
import StratusWire

extension CloudKitService {
    /// `records/modify`: applies up to 200 operations in one zone, atomically in custom zones.
    func modifyRecords(_ context: RequestContext) async throws -> HTTPResponse {
        let schema = try await schema(for: context)
        let request = try context.decode(RecordsModify.Request.self, schema: schema)
        let limit = configuration.limits.maximumOperationsPerRequest
        guard request.operations.count <= limit else {
            throw ServiceError.badRequest("a request may carry at most \(limit) operations; this one has \(request.operations.count)")
        }
        var seen: Set<String> = []
        for operation in request.operations {
            if let name = operation.record.recordName, !seen.insert(name).inserted {
                throw ServiceError.badRequest("record '\(name)' appears in more than one operation; send one operation per record per request")
            }
        }
        let zoneName = try context.zoneName(of: request.zoneID)
        let author = StoredRecord.Stamp(timestamp: configuration.now(), userRecordName: context.caller, deviceID: context.deviceID)
        let database = context.database
        let uuid = context.requestID
        let creator = database.scope == .public && !context.principal.isPrivileged ? context.caller : nil
        let policy = ReadPolicy(schema: schema, context: context)
        let outcome: ModifyOutcome
        do {
            outcome = try await applyModify(
                request, zoneName: zoneName, database: database, author: author, creator: creator, policy: policy.isOpen ? nil : policy,
                uuid: uuid, effects: changeEffects(context), sharing: shareAdmission(for: request.operations, context: context)
            )
        } catch let failure as AtomicBatchFailure {
            outcome = ModifyOutcome(results: failure.results, schema: nil)
        }
        if let schema = outcome.schema {
            schemas.replace(schema.schema, container: context.container, environment: context.environment, ticket: schema.ticket)
        }
        if outcome.notifies { fanout.kick() }
        return try context.encode(RecordsModify.Response(records: outcome.results), numbersAsStrings: request.numbersAsStrings)
    }

    private func applyModify(
        _ request: RecordsModify.Request, zoneName: String, database: DatabaseKey, author: StoredRecord.Stamp, creator: String?,
        policy: ReadPolicy?, uuid: String, effects: RecordChangeEffects, sharing: ShareAdmission?
    ) async throws -> ModifyOutcome {
        let limits = configuration.limits
        let makeRecordName = configuration.makeRecordName
        let schemas = self.schemas
        let quota = configuration.quotas.limits(for: database.container)
        return try await store.write { tx -> ModifyOutcome in
            guard let zone = try Self.zone(named: zoneName, in: database, tx, createDefault: true, now: author.timestamp) else {
                let error = ServiceError(.zoneNotFound, "zone '\(zoneName)' does not exist")
                return ModifyOutcome(results: request.operations.map { .error(error.recordError(recordName: $0.record.recordName, uuid: uuid)) }, schema: nil)
            }
            let atomic = request.isAtomic && !zone.isDefaultZone
            var modifier = RecordModifier(
                writer: tx, zone: zone, author: author, limits: limits, makeRecordName: makeRecordName,
                schema: SchemaAdmission(schema: try tx.schema(container: database.container, environment: database.environment), environment: database.environment),
                assets: effects.assets
            )
            modifier.requiredCreator = creator
            modifier.readPolicy = policy
            // One lock and one read for every named record of the batch, before the per-record loop.
            try tx.prefetchRecords(named: request.operations.compactMap(\.record.recordName), inZone: zone.rowID)
            // The key-value store's zone has limits (KeyValueLimits); other zones load nothing.
            var keyValueUsage = try KeyValueUsage.load(zone: zone, database: database, tx)
            var results: [RecordResult] = []
            for (index, operation) in request.operations.enumerated() {
                let keys = operation.desiredKeys ?? request.desiredKeys
                do {
                    try keyValueUsage?.admit(operation, zone: zone, tx)
                    if let name = operation.record.recordName, try sharing?.participantDeletes(operation, zone: zone, tx) == true {
                        results.append(.record(RecordPresenter.deletion(name)))
                        continue
                    }
                    let share = try sharing?.prepare(operation, zone: zone, tx)
                    switch try modifier.apply(operation) {
                    case .saved(let record):
                        var wire = RecordPresenter.wire(record, zone: zone, desiredKeys: Self.shownKeys(keys, of: record, for: operation, policy))
                        try sharing?.saved(record, operation: operation, share: share, zone: zone, wire: &wire, tx)
                        results.append(.record(wire))
                    case .deleted(let name): results.append(.record(RecordPresenter.deletion(name)))
                    }
                    try keyValueUsage?.applied(operation, zone: zone, tx)
                } catch let error as ServiceError {
                    let failure = RecordResult.error(error.recordError(recordName: operation.record.recordName, uuid: uuid))
                    guard atomic else {
                        results.append(failure)
                        continue
                    }
                    throw AtomicBatchFailure(results: Self.atomicResults(request.operations, failedAt: index, failure: failure, uuid: uuid))
                }
            }
            if !zone.isDefaultZone {
                try ShareHierarchy.recordMoves(modifier.changes, zone: zone, tx)
                try ShareAdmission.deleted(modifier.changes, zone: zone, tx)
            }
            try Self.account(modifier.changes, zone: zone, database: database, limits: quota, tx)
            let notifies = try effects.apply(modifier.changes, zone: zone, tx)
            if modifier.schema.changed {
                try tx.saveSchema(modifier.schema.schema, container: database.container, environment: database.environment)
            }
            // The schema as this transaction saw it (and grew it): it refreshes the cache, which also
            // picks up a schema imported or deployed by `stratus schema` while the server runs.
            return ModifyOutcome(results: results, schema: (modifier.schema.schema, schemas.ticket()), notifies: notifies)
        }
    }

    /// The fields a saved record shows its writer: `desiredKeys`, but only what the writer sent when
    /// the read policy hides the record from them (a merge must not echo fields they may not read).
    static func shownKeys(_ keys: [String]?, of record: StoredRecord, for operation: RecordOperation, _ policy: ReadPolicy?) -> [String]? {
        guard let policy, !policy.allows(record) else { return keys }
        let sent = Set((operation.record.fields ?? [:]).keys)
        return (keys.map { $0.filter(sent.contains) } ?? Array(sent)).sorted()
    }

    /// `records/lookup`: one result per requested name, `NOT_FOUND` for missing ones.
    func lookupRecords(_ context: RequestContext) async throws -> HTTPResponse {
        let request = try context.decode(RecordsLookup.Request.self)
        let limit = configuration.limits.maximumResultsPerResponse
        guard request.records.count <= limit else {
            throw ServiceError.badRequest("a lookup may name at most \(limit) records; this one names \(request.records.count)")
        }
        let zoneName = try context.zoneName(of: request.zoneID)
        let database = context.database
        let uuid = context.requestID
        let caller = context.caller
        let policy = database.scope == .public ? ReadPolicy(schema: try await schema(for: context), context: context) : nil
        let results = try await store.read { tx -> [RecordResult] in
            let zone = try tx.zone(named: zoneName, in: database)
            return try request.records.map { item in
                guard let zone else {
                    if zoneName == ZoneID.defaultZoneName {
                        return .error(ServiceError(.notFound, "record '\(item.recordName)' does not exist").recordError(recordName: item.recordName, uuid: uuid))
                    }
                    return .error(ServiceError(.zoneNotFound, "zone '\(zoneName)' does not exist").recordError(recordName: item.recordName, uuid: uuid))
                }
                // A record the caller may not read is answered exactly as a missing one, so a lookup
                // cannot tell that it exists.
                guard let record = try tx.record(named: item.recordName, inZone: zone.rowID), !record.isDeleted, policy?.allows(record) ?? true else {
                    return .error(Self.recordNotFound(item.recordName, zoneName: zoneName).recordError(recordName: item.recordName, uuid: uuid))
                }
                var wire = RecordPresenter.wire(record, zone: zone, desiredKeys: item.desiredKeys ?? request.desiredKeys)
                try ShareDecoration.decorate(&wire, record, zone: zone, caller: caller, tx)
                return .record(wire)
            }
        }
        return try context.encode(RecordsLookup.Response(records: results), numbersAsStrings: request.numbersAsStrings)
    }

    /// The error for a record that does not exist in a zone, or that the caller may not read:
    /// both look the same, so no answer reveals that a hidden record exists.
    static func recordNotFound(_ name: String, zoneName: String) -> ServiceError {
        ServiceError(.notFound, "record '\(name)' does not exist in zone '\(zoneName)'")
    }

    /// The live zone named `name`; the default zone is created on first use when `createDefault`.
    static func zone(named name: String, in database: DatabaseKey, _ tx: any RecordStoreWriter, createDefault: Bool, now: Int64) throws -> ZoneRow? {
        if let zone = try tx.zone(named: name, in: database) { return zone }
        guard createDefault, name == ZoneID.defaultZoneName else { return nil }
        return try tx.createZone(named: name, in: database, createdAt: now)
    }

    /// Results of an atomic batch that failed at `index`: the real error there, `ATOMIC_ERROR` elsewhere.
    private static func atomicResults(_ operations: [RecordOperation], failedAt index: Int, failure: RecordResult, uuid: String) -> [RecordResult] {
        operations.enumerated().map { position, operation in
            if position == index { return failure }
            let reason = "not applied: operation \(index) (record '\(operations[index].record.recordName ?? "?")') of this atomic batch failed"
            return .error(ServiceError(.atomicError, reason).recordError(recordName: operation.record.recordName, uuid: uuid))
        }
    }
}

/// The result of a modify transaction.
struct ModifyOutcome: Sendable {
    var results: [RecordResult]
    /// The schema the transaction committed, with its cache ticket; `nil` when it rolled back.
    var schema: (schema: Schema, ticket: UInt64)?
    /// Whether the write appended a push outbox entry, to fan out after the commit.
    var notifies = false
}

/// Thrown out of an atomic batch's transaction to roll it back, carrying the per-item results.
struct AtomicBatchFailure: Error {
    var results: [RecordResult]
}
