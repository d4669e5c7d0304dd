import StratusHTTP
import StratusWire

extension RecordEndpoints {
    /// The header naming the author's own courier token, which this write's notifications then skip.
    static let skipPushTokenHeader = "X-Stratus-Skip-Push-Token"

    /// `records/modify`: applies up to 200 operations in one zone, atomically in custom zones.
    func modifyRecords(_ context: DatabaseRequest) async throws -> HTTPResponse {
        let schema = try await schemas.schema(for: context, in: store)
        let request = try context.decode(RecordsModify.Request.self, schema: schema)
        try configuration.limits.checkOperationCount(request.operations.count)
        var seen: Set<String> = []
        for operation in request.operations {
            if let name = operation.record.recordName, !seen.insert(name).inserted {
                throw ServiceError.badRequest("record '\(name)' appears in more than one operation; send one operation per record per request")
            }
        }
        let database = context.database
        let zoneName = try context.zoneName(of: request.zoneID)
        let policy = ReadPolicy(schema: schema, context: context)
        let transaction = ModifyTransaction(
            request: request, zoneName: zoneName, database: database,
            author: StoredRecord.Stamp(timestamp: configuration.now(), userRecordName: context.caller, deviceID: context.deviceID),
            roleCheckedCaller: database.scope == .public && !context.principal.isPrivileged ? context.caller : nil,
            readPolicy: policy.isOpen ? nil : policy, uuid: context.requestID, limits: configuration.limits,
            quota: configuration.quotas.limits(for: database.container), makeRecordName: configuration.makeRecordName,
            effects: changeEffects(context), sharing: try await invitations.admission(for: request.operations, context: context),
            schemas: schemas
        )
        let outcome: ModifyOutcome
        do {
            outcome = try await store.write(in: database, zone: zoneName, reading: transaction.hint) { tx in try transaction.run(tx) }
        } catch let failure as AtomicBatchFailure {
            outcome = ModifyOutcome(results: failure.results, schema: nil)
        }
        if let schema = outcome.schema {
            schemas.replace(schema.schema, container: context.container, environment: context.environment, ticket: schema.ticket)
        }
        if outcome.notifies { fanout.kick() }
        return try context.encode(RecordsModify.Response(records: outcome.results), numbersAsStrings: request.numbersAsStrings)
    }

    /// The side effects of a records write by this request.
    private func changeEffects(_ context: DatabaseRequest) -> RecordChangeEffects {
        let now = configuration.now()
        return RecordChangeEffects(
            assets: assetsEnabled ? AssetAdmission(tokens: tokens, caller: context.caller, database: context.database) : nil,
            push: PushOutboxRecorder(configuration: configuration.push, now: now, skippedToken: context.request.headers[Self.skipPushTokenHeader]),
            now: now
        )
    }
}
