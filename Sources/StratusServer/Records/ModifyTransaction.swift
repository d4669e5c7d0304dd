import StratusWire

/// One `records/modify` inside its write transaction, in three steps that run in this order:
///
/// 1. ``begin(_:)``: the zone (the default zone made on first use), a ``RecordModifier`` on the
///    schema as this transaction reads it, one read of every named record (and, announced with it,
///    whether subscriptions watch the request's record types), the key-value zone's usage;
/// 2. ``Batch/apply(_:at:)`` per operation, each in its own savepoint: limits first, then the sharing
///    checks, the write, and the bookkeeping that needs the written record;
/// 3. ``Batch/finish()``: what the batch's changes do together — share hierarchies, quotas, asset
///    references and the push outbox, the grown schema — and the schema cache's ticket, taken last.
///
/// A failing operation of an atomic batch throws ``AtomicBatchFailure``, which rolls the whole
/// transaction back and carries every operation's result.
struct ModifyTransaction: Sendable {
    let request: RecordsModify.Request
    let zoneName: String
    let database: DatabaseKey
    let author: StoredRecord.Stamp
    /// The calling user, when the public database's security roles limit their writes.
    let roleCheckedCaller: String?
    let readPolicy: ReadPolicy?
    /// The request's ID, the `uuid` of its per-record errors.
    let uuid: String
    let limits: ServiceLimits
    let quota: QuotaLimits
    let makeRecordName: @Sendable () -> String
    let effects: RecordChangeEffects
    let sharing: ShareAdmission?
    let schemas: SchemaCache

    /// Runs the three steps; the outcome carries the schema the transaction saw, to refresh the cache.
    func run(_ tx: any RecordStoreWriter) throws -> ModifyOutcome {
        guard var batch = try begin(tx) else {
            let error = ServiceError(.zoneNotFound, "zone '\(zoneName)' does not exist")
            return ModifyOutcome(results: request.operations.map { .error(error.recordError(recordName: $0.record.recordName, uuid: uuid)) }, schema: nil)
        }
        for (index, operation) in request.operations.enumerated() {
            try batch.apply(operation, at: index)
        }
        return try batch.finish()
    }

    /// What ``begin(_:)`` reads ahead, said before the transaction (a back end may read it for a group of writes at once).
    var hint: RecordWriteHint {
        RecordWriteHint(
            recordNames: request.operations.compactMap(\.record.recordName), recordTypes: Set(request.operations.compactMap(\.record.recordType)))
    }

    /// Step 1, or `nil` when the zone does not exist.
    private func begin(_ tx: any RecordStoreWriter) throws -> Batch? {
        guard let zone = try tx.zoneCreatingDefault(named: zoneName, in: database, now: author.timestamp) else { return nil }
        let schema = try tx.schema(container: database.container, environment: database.environment)
        let modifier = RecordModifier(
            writer: tx, zone: zone, author: author, limits: limits, makeRecordName: makeRecordName,
            schema: SchemaAdmission(schema: schema, environment: database.environment),
            roleCheckedCaller: roleCheckedCaller, readPolicy: readPolicy, assets: effects.assets
        )
        // One lock and one read for every named record of the batch, before the per-record loop,
        // with the question the push outbox asks at the end (whether a subscription watches the types).
        let hint = hint
        try tx.prefetchSubscriptionCandidates(in: database, zoneName: zone.zoneName, recordTypes: hint.recordTypes)
        try tx.prefetchRecords(named: hint.recordNames, inZone: zone.rowID)
        // The key-value store's zone has limits (KeyValueContract); other zones load nothing.
        let keyValueUsage = try KeyValueUsage.load(zone: zone, database: database, tx)
        return Batch(transaction: self, tx: tx, zone: zone, modifier: modifier, keyValueUsage: keyValueUsage)
    }

    /// Steps 2 and 3: the operations applied so far, and their results.
    struct Batch {
        let transaction: ModifyTransaction
        let tx: any RecordStoreWriter
        let zone: ZoneRow
        var modifier: RecordModifier
        var keyValueUsage: KeyValueUsage?
        var results: [RecordResult] = []

        /// Step 2: applies `operation`, appending its result; a failure of an atomic batch throws ``AtomicBatchFailure``.
        mutating func apply(_ operation: RecordOperation, at index: Int) throws {
            do {
                results.append(try write(operation))
            } catch let error as ServiceError {
                let failure = RecordResult.error(error.recordError(recordName: operation.record.recordName, uuid: transaction.uuid))
                guard transaction.request.isAtomic, !zone.isDefaultZone else {
                    results.append(failure)
                    return
                }
                throw AtomicBatchFailure(results: transaction.atomicResults(failedAt: index, failure: failure))
            }
        }

        /// One operation: the key-value limits and a participant's share deletions are checked before
        /// anything is written; the share record is prepared before the write that saves it, and
        /// completed with the saved record; the key-value usage is updated from what was written.
        private mutating func write(_ operation: RecordOperation) throws -> RecordResult {
            let (sharing, zone, tx) = (transaction.sharing, zone, tx)
            try keyValueUsage?.admit(operation, zone: zone, tx)
            if let name = operation.record.recordName, try sharing?.participantDeletes(operation, zone: zone, tx) == true {
                return .record(RecordPresenter.deletion(name))
            }
            let share = try sharing?.prepare(operation, zone: zone, tx)
            let result: RecordResult
            switch try modifier.apply(operation) {
            case .saved(let record):
                let keys = RecordEndpoints.shownKeys(
                    operation.desiredKeys ?? transaction.request.desiredKeys, of: record, for: operation, transaction.readPolicy
                )
                var wire = RecordPresenter.wire(record, zone: zone, desiredKeys: keys)
                try sharing?.saved(record, operation: operation, share: share, zone: zone, wire: &wire, tx)
                result = .record(wire)
            case .deleted(let name):
                result = .record(RecordPresenter.deletion(name))
            }
            try keyValueUsage?.applied(operation, zone: zone, tx)
            return result
        }

        /// Step 3: the batch's changes (cascades included) moved share hierarchies and deleted shares,
        /// then count against the quota, then update asset references and queue notifications; the
        /// grown schema is saved. The cache ticket is taken inside the transaction, after everything
        /// else, so that cache updates land in commit order.
        func finish() throws -> ModifyOutcome {
            let changes = modifier.changes
            let database = transaction.database
            if !zone.isDefaultZone {
                try ShareHierarchy.recordMoves(changes, zone: zone, tx)
                try ShareAdmission.deleted(changes, zone: zone, tx)
            }
            try StorageQuota.account(changes, zone: zone, database: database, limits: transaction.quota, tx)
            let notifies = try transaction.effects.apply(changes, zone: zone, tx)
            if modifier.schema.changed {
                try tx.saveSchema(modifier.schema.schema, container: database.container, environment: database.environment)
            }
            // The schema as this transaction saw it (and grew it): it refreshes the cache, which also
            // picks up a schema imported or deployed by `stratus schema` while the server runs.
            return ModifyOutcome(results: results, schema: (modifier.schema.schema, transaction.schemas.ticket()), notifies: notifies)
        }
    }

    /// Results of an atomic batch that failed at `index`: the real error there, `ATOMIC_ERROR` elsewhere.
    private func atomicResults(failedAt index: Int, failure: RecordResult) -> [RecordResult] {
        let operations = request.operations
        return operations.enumerated().map { position, operation in
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

extension RecordEndpoints {
    /// The fields a saved record shows its writer: `desiredKeys`, but only what the writer sent when
    /// the read policy hides the record from them (a merge must not echo fields they may not read).
    static func shownKeys(_ keys: [String]?, of record: StoredRecord, for operation: RecordOperation, _ policy: ReadPolicy?) -> [String]? {
        guard let policy, !policy.allows(record) else { return keys }
        let sent = Set((operation.record.fields ?? [:]).keys)
        return (keys.map { $0.filter(sent.contains) } ?? Array(sent)).sorted()
    }
}
