import Foundation
import StratusClient
import StratusLogging
import StratusWire

extension SyncController {
    // MARK: Enqueue

    /// Queues `entity` (and the entities it references) and uploads unless paused.
    func save(_ entity: any SyncableEntity, keys: Set<String>?) async throws -> StratusClient.Record? {
        var visited: Set<ObjectIdentifier> = []
        let seq = try enqueueSave(entity, keys: keys, visited: &visited)
        machine.outboxChanged(pending: try bookkeeping.outboxCount())
        publish()
        guard !machine.status.isPaused, await zoneIsReady() else { return nil }
        await drain()
        switch outcomes[seq] {
        case .success(let record)?: return record
        case .failure(let error)?: throw error
        case nil: return nil
        }
    }

    /// Queues the deletion of `entity`'s record and uploads unless paused.
    func delete(_ entity: any SyncableEntity) async throws {
        guard let entry = try deletionEntry(entity) else { return }
        let seq = try bookkeeping.enqueue(entry, coalescingAfter: inFlightSeq)
        machine.outboxChanged(pending: try bookkeeping.outboxCount())
        publish()
        guard !machine.status.isPaused, await zoneIsReady() else { return }
        await drain()
        if case .failure(let error)? = outcomes[seq] { throw error }
    }

    /// The outbox entry deleting `entity`'s record; `nil` when it has no record name (never saved).
    func deletionEntry(_ entity: any SyncableEntity) throws(SyncError) -> OutboxEntry? {
        let description = try description(of: type(of: entity))
        guard let syncID = description.syncID(of: entity) else { return nil }
        return OutboxEntry(
            seq: 0, kind: .delete, recordType: description.recordType, recordName: syncID, fields: [:], cleared: [], editedAt: editTime())
    }

    /// Whether the zone exists (creating it if needed); offline, the change stays queued and a retry is scheduled.
    func zoneIsReady() async -> Bool {
        do {
            try await ensureZone()
            return true
        } catch {
            logger.info("cannot reach the server, changes stay queued: \(error)")
            forgetZoneIfMissing(error)
            scheduleReconnect()
            return false
        }
    }

    /// The entity's record name, assigned (and written into the entity) when it has none.
    func ensureSyncID(_ entity: any SyncableEntity) throws(SyncError) -> String {
        let description = try description(of: type(of: entity))
        if let id = description.syncID(of: entity) { return id }
        let id = UUID().uuidString
        entity.setValue(id, forKey: description.syncIdKey)
        return id
    }

    /// Whether `entity` stands in for an empty reference (never uploaded).
    func isPlaceholder(_ entity: any SyncableEntity) -> Bool {
        placeholders[ObjectIdentifier(entity)] != nil || entity === type(of: entity).referencePlaceholder
    }

    /// Queues referenced entities first (parent before child), then `entity`, in one outbox
    /// transaction; returns its entry.
    func enqueueSave(_ entity: any SyncableEntity, keys: Set<String>?, visited: inout Set<ObjectIdentifier>) throws -> Int64 {
        var entries: [OutboxEntry] = []
        try collectSave(entity, keys: keys, owner: nil, visited: &visited, into: &entries)
        return try bookkeeping.enqueue(entries, coalescingAfter: inFlightSeq).last ?? 0
    }

    /// The outbox entries saving `entity` needs, appended to `entries`: referenced entities first
    /// (parent before child), `entity` last.
    func collectSave(
        _ entity: any SyncableEntity, keys: Set<String>?, owner: String?, visited: inout Set<ObjectIdentifier>,
        into entries: inout [OutboxEntry]
    ) throws {
        let description = try description(of: type(of: entity))
        let name = try ensureSyncID(entity)
        visited.insert(ObjectIdentifier(entity))
        var fields: [String: FieldValue] = [:]
        var cleared: Set<String> = []
        var targets: [(any SyncableEntity, owned: Bool)] = []
        for (local, remote) in description.mapping where keys?.contains(local) ?? true {
            if let value = FieldConversion.fieldValue(of: entity.value(forKey: local)) {
                fields[remote] = value
            } else {
                cleared.insert(remote)
            }
        }
        for (local, remote) in description.references where keys?.contains(local) ?? true {
            // A placeholder stands in for an empty reference; it is never uploaded.
            guard let target = entity.value(forKey: local) as? any SyncableEntity, !isPlaceholder(target) else {
                cleared.insert(remote)
                continue
            }
            let targetName = try ensureSyncID(target)
            fields[remote] = .reference(Reference(RecordID(recordName: targetName, zoneID: zoneID)))
            targets.append((target, type(of: target).isWeak))
        }
        for list in description.referenceLists where keys?.contains(list.localKey) ?? true {
            let members = entity.value(forKey: list.localKey) as? [any SyncableEntity] ?? []
            var references: [Reference] = []
            for member in members {
                references.append(Reference(RecordID(recordName: try ensureSyncID(member), zoneID: zoneID)))
                targets.append((member, type(of: member).isWeak))
            }
            fields[list.remoteKey] = references.isEmpty ? .emptyList : .referenceList(references)
        }
        if let owner {
            fields[Self.ownerField] = .reference(Reference(RecordID(recordName: owner, zoneID: zoneID), action: .deleteSelf))
        }
        for (target, owned) in targets where !visited.contains(ObjectIdentifier(target)) {
            try collectSave(target, keys: nil, owner: owned ? name : nil, visited: &visited, into: &entries)
        }
        liveEntities[name] = entity
        entries.append(
            OutboxEntry(
                seq: 0, kind: .save, recordType: description.recordType, recordName: name, fields: fields, cleared: cleared,
                editedAt: editTime()))
    }

    // MARK: Drain

    /// Uploads the outbox in order, one entry at a time; joins a drain already running.
    func drain() async {
        if drainTask == nil {
            drainError = nil
            drainTask = Task { await self.runDrain() }
        }
        await drainTask?.value
    }

    private func runDrain() async {
        defer { drainTask = nil }
        guard machine.beginWork() == .run else { return }
        publish()
        var failure: (any Error)?
        do {
            while !machine.status.isPaused {
                let head = try bookkeeping.outboxEntries(limit: Database.maximumOperationsPerRequest)
                guard let entry = head.first else { break }
                let batch = Self.batchable(head)
                if entry.kind == .delete {
                    inFlightSeq = batch.last?.seq
                    defer { inFlightSeq = nil }
                    try await deleteBatch(batch)
                    continue
                }
                if batch.count > 1 {
                    inFlightSeq = batch.last?.seq
                    defer { inFlightSeq = nil }
                    try await uploadBatch(batch)
                    continue
                }
                inFlightSeq = entry.seq
                defer { inFlightSeq = nil }
                do {
                    try finish(entry, .success(try await uploadSave(entry)))
                } catch let error as SyncError {
                    try finish(entry, .failure(error))
                    await reportSave(entry, record: nil, error: error)
                }
            }
        } catch {
            logger.info("upload stopped, changes stay queued: \(error)")
            forgetZoneIfMissing(error)
            scheduleReconnect()
            failure = error
        }
        drainError = failure
        if outcomes.count > 10_000 { outcomes = [:] }
        machine.endWork(pending: (try? bookkeeping.outboxCount()) ?? machine.status.pendingCount, error: failure.map { "\($0)" })
        publish()
    }

    /// Uploads one save. Throws ``SyncError`` for a refusal (the entry is dropped and reported);
    /// any other error leaves the entry queued.
    func uploadSave(_ entry: OutboxEntry) async throws -> StratusClient.Record? {
        let base = try bookkeeping.base(entry.recordName)
        let entry = try preparingAssets(entry, base: base)
        var record: StratusClient.Record
        if let base {
            record = try StratusClient.Record(wire: base.record, zoneID: zoneID)
        } else {
            record = StratusClient.Record(recordType: entry.recordType, recordID: RecordID(recordName: entry.recordName, zoneID: zoneID))
        }
        Self.apply(entry, to: &record)
        guard base == nil || !record.changedKeys().isEmpty else {
            await reportSave(entry, record: record, error: nil)
            return record
        }
        var conflicted = false
        for attempt in 1...5 {
            let results = try await database.modifyRecords(saving: [record], deleting: [], atomically: false)
            switch results.saveResults[record.recordID] {
            case .success(let saved)?:
                try remember(saved)
                await writeBack(saved, entryName: entry.recordName, applyFields: conflicted)
                await reportSave(entry, record: saved, error: nil)
                logger.debug("saved \(entry.recordType) \(entry.recordName)")
                return saved
            case .failure(let error)? where error.code == .serverRecordChanged:
                logger.debug("conflict on \(entry.recordType) \(entry.recordName) (attempt \(attempt))")
                conflicted = true
                let server: StratusClient.Record
                if let known = error.serverRecord {
                    server = known
                } else {
                    server = try await database.record(for: record.recordID)
                }
                guard let next = try await resolve(entry, base: base, server: server) else {
                    try remember(server)
                    await writeBack(server, entryName: entry.recordName, applyFields: true)
                    await reportSave(entry, record: server, error: nil)
                    return server
                }
                record = next
            case .failure(let error)?:
                try Self.rethrowIfTransient(error)
                throw SyncError(.rejected, "the server refused record '\(entry.recordName)' of type '\(entry.recordType)'", underlying: error)
            case nil:
                throw StratusError(.serverResponseLost, "the server did not answer for record '\(entry.recordName)'")
            }
        }
        throw SyncError(.conflictUnresolved, "record '\(entry.recordName)' kept changing on the server; gave up after 5 attempts")
    }

    /// Resolves a conflict; returns the record to save next, or `nil` when the server's version stands.
    private func resolve(_ entry: OutboxEntry, base: BaseRecord?, server: StratusClient.Record) async throws -> StratusClient.Record? {
        let baseFields = base?.record.fields
        var local = baseFields ?? server.fields
        for (key, value) in entry.fields { local[key] = value }
        for key in entry.cleared { local[key] = nil }
        var keys = Set(entry.fields.keys).union(entry.cleared)
        if let description = descriptions[entry.recordType] { keys.formUnion(description.remoteKeys) }
        let versions = ConflictVersions(
            recordType: entry.recordType, recordName: entry.recordName, base: baseFields, local: local, server: server.fields, keys: keys,
            localEditDate: entry.editedAt, serverModificationDate: server.modificationDate)
        let resolved = ConflictResolver.resolve(versions, policy: configuration.conflictPolicy)
        let report = ConflictResolver.report(versions, resolved: resolved)
        if !report.discardedLocal.isEmpty || !report.discardedServer.isEmpty {
            logger.info(
                "conflict on \(entry.recordType) \(entry.recordName): kept \(resolved.keys.sorted()), "
                    + "discarded local \(report.discardedLocal.keys.sorted()), server \(report.discardedServer.keys.sorted())")
            await delegate.syncController(self, didResolve: report)
        }
        var next = server
        for key in keys where server.fields[key] != resolved[key] {
            next[key] = resolved[key]
        }
        return next.changedKeys().isEmpty ? nil : next
    }

    /// Sets the outbox entry's fields on a record (only those that differ, so unchanged keys are not sent).
    static func apply(_ entry: OutboxEntry, to record: inout StratusClient.Record) {
        for (key, value) in entry.fields where record.fields[key] != value {
            record[key] = value
        }
        for key in entry.cleared where record.fields[key] != nil {
            record[key] = Optional<FieldValue>.none
        }
    }

    /// Stores a record this device wrote as its last-synced version.
    func remember(_ saved: StratusClient.Record) throws {
        try bookkeeping.setBase(saved.recordID.recordName, Self.base(of: saved))
        try didRemember(saved)
    }

    /// A saved record as a last-synced version.
    static func base(of saved: StratusClient.Record) -> BaseRecord {
        BaseRecord(recordType: saved.recordType, record: saved.wireRecord, modificationDate: saved.modificationDate)
    }

    /// What follows storing a saved record's last-synced version: the clock skew, the held assets, the generation.
    func didRemember(_ saved: StratusClient.Record) throws {
        if let date = saved.modificationDate { skew = date.timeIntervalSince(configuration.now()) }
        try noteSavedAssets(saved)
        bumpGeneration(saved.recordID.recordName)
    }

    func bumpGeneration(_ name: String) {
        generation += 1
        baseGenerations[name] = generation
    }

    /// Writes the server's version back into the local entity: record name, modification date, and
    /// any field a conflict resolution changed.
    func writeBack(_ saved: StratusClient.Record, entryName: String, applyFields: Bool) async {
        guard let description = descriptions[saved.recordType] else { return }
        let entity: (any SyncableEntity)?
        if let live = liveEntities[entryName] {
            entity = live
        } else {
            entity = try? await delegate.entity(ofType: description.type, syncID: entryName)
        }
        guard let entity else { return }
        entity.setValue(saved.recordID.recordName, forKey: description.syncIdKey)
        entity.setValue(saved.modificationDate, forKey: description.changeDateKey)
        guard applyFields else { return }
        for (local, remote) in description.mapping where !applyAssetField(of: saved, local: local, remote: remote, to: entity) {
            let current = entity.value(forKey: local)
            if FieldConversion.fieldValue(of: current) != saved.fields[remote] {
                entity.setValue(FieldConversion.localValue(of: saved.fields[remote], like: current), forKey: local)
            }
        }
        // The resolution may reference records this device has not fetched yet: fetch them.
        var resolved: [String: any SyncableEntity] = [saved.recordID.recordName: entity]
        do {
            try await applyReferences(of: saved, to: entity, description: description, batch: &resolved, fetchReferences: true)
        } catch {
            logger.info("could not resolve the references of \(saved.recordType) \(saved.recordID.recordName): \(error)")
        }
    }

    func reportSave(_ entry: OutboxEntry, record: StratusClient.Record?, error: (any Error)?) async {
        guard let description = descriptions[entry.recordType] else { return }
        let entity: (any SyncableEntity)?
        if let live = liveEntities[entry.recordName] {
            entity = live
        } else {
            entity = try? await delegate.entity(ofType: description.type, syncID: entry.recordName)
        }
        await delegate.syncController(self, didSave: entity, record: record, error: error)
    }

    /// Rethrows errors worth retrying later (network, throttling, authentication, zone missing).
    static func rethrowIfTransient(_ error: StratusError) throws {
        switch error.code {
        case .networkFailure, .networkUnavailable, .serviceUnavailable, .requestRateLimited, .notAuthenticated, .zoneNotFound,
            .serverResponseLost, .internalError:
            throw error
        default:
            return
        }
    }
}
