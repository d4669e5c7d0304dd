import Foundation
import StratusClient
import StratusLogging
import StratusWire

extension SyncController {
    /// Applies fetched records and deletions to entities (fields first, then references, so order
    /// within the batch does not matter), hands them to the delegate and commits on its ``FinishSync``
    /// (then runs `afterCommit`, such as acknowledging the public database's DeleteQueue entries).
    ///
    /// A write-back batch (``PendingBatch/Kind/writeBack``) delivers records this device uploaded
    /// after resolving a conflict, so the store receives the resolved values the same way.
    func deliver(
        _ fetched: FetchedRecords, batch startBatch: PendingBatch, afterCommit: (@Sendable () async throws -> Void)? = nil
    ) async throws -> SyncChanges {
        var batch = startBatch
        var changes = SyncChanges()
        var applied: [String: EntityRef] = [:]
        var toLink: [(StratusClient.Record, EntityRef, EntityDescription)] = []
        let records = fetched.records.sorted { $0.recordID.recordName < $1.recordID.recordName }
        let bases = try bookkeeping.bases(records.map(\.recordID.recordName))
        for record in records {
            let name = record.recordID.recordName
            guard let description = descriptions[record.recordType], fetched.only?.contains(record.recordType) ?? true else {
                logger.debug("ignoring record \(name) of type \(record.recordType)")
                continue
            }
            guard !configuration.ignoreKeys.contains(name) else {
                logger.debug("ignoring record \(name): its sync ID is in ignoreKeys")
                continue
            }
            guard try await shouldApply(record, base: bases[name], fetched: fetched, batch: &batch) else { continue }
            let existing = try await delegateEntity(ofType: description.type, syncID: name)
            let entity: EntityRef
            if let existing {
                entity = existing
            } else {
                entity = try await delegateCreateEntity(ofType: description.type)
            }
            try await applyFields(of: record, to: entity, description: description)
            applied[name] = entity
            toLink.append((record, entity, description))
            let change = SyncChanges.Applied(entity: entity.entity, record: record)
            if existing == nil { changes.inserted.append(change) } else { changes.updated.append(change) }
            if batch.kind == .writeBack {
                batch.writeBacks.append(name)
            } else {
                batch.bases.append((name, Self.base(of: record)))
            }
        }
        for (record, entity, description) in toLink {
            unresolvedTargets = []
            try await applyReferences(of: record, to: entity, description: description, batch: &applied, fetchReferences: false)
            batch.dangling += unresolvedTargets.map { ($0, record.recordID.recordName) }
        }
        try await relinkDangling(arrived: Array(applied.keys), batch: &batch, changes: &changes, applied: &applied)
        try await collectMissing(fetched, present: Set(records.map(\.recordID.recordName)), batch: &batch, changes: &changes)
        try collectDeletions(fetched.deletions, batch: &batch, changes: &changes)
        if batch.kind == .fetch { machine.fetched() }
        logger.debug(
            "\(batch.kind == .fetch ? "fetched" : "wrote back") \(changes.inserted.count) new, \(changes.updated.count) updated, "
                + "\(changes.deleted.count) deleted, \(batch.requeue.count) queued again")
        let pending = batch
        let commit: @Sendable () async throws -> Void = { [self] in
            guard try await self.commit(pending) else { return }
            for conflict in pending.discarded { await self.delegate.syncController(self, didResolve: conflict) }
            try await afterCommit?()
        }
        if changes.isEmpty {
            try await commit()
            return changes
        }
        await Self.$delivering.withValue(true) {
            await delegate.syncController(self, didFinishSync: changes, finishSync: FinishSync(commit: commit))
        }
        return changes
    }

    /// Whether a fetched record is applied: not when this device already has that version, when an
    /// upload wrote a newer one meanwhile, or when an edit waits (its upload meets this version as a
    /// conflict and merges it). A record the server holds in a version older than this device's
    /// (a server restored from an earlier state) is not applied either: the device's version is
    /// queued to go back up.
    private func shouldApply(
        _ record: StratusClient.Record, base: BaseRecord?, fetched: FetchedRecords, batch: inout PendingBatch
    ) async throws -> Bool {
        let name = record.recordID.recordName
        if batch.kind == .fetch, !fetched.full, let tag = base?.record.recordChangeTag, tag == record.recordChangeTag {
            return false  // this device's own write, or a version already applied
        }
        if (baseGenerations[name] ?? 0) > batch.generation {
            return false  // uploaded while this fetch was under way: the device holds a newer version
        }
        let pending = try bookkeeping.outboxEntries(for: name)
        if !pending.isEmpty {
            let idle = try pending.allSatisfy { entry in
                guard entry.kind == .save else { return false }
                return Self.sendsNothing(try outgoingRecord(entry, base: base), base: base)
            }
            // The pending upload will meet this version as a conflict and merge it.
            guard idle else { return false }
            // Entries that send nothing (a forced sync's recheck of an unchanged record, left by a
            // drain that failed) never meet this version: skipped, it would be lost for good once the
            // token moves past it (the sync simulator, seed 276). It is applied, and they go.
            batch.dropped += pending.map(\.seq)
        }
        if fetched.missing == .lost, let base, let baseTag = base.record.recordChangeTag, baseTag != record.recordChangeTag,
            let held = base.modificationDate, let server = record.modificationDate, server < held
        {
            // The server went back in time: it becomes the base, and this device's version goes back up.
            try await requeue([(name, record.recordType, held)], batch: &batch)
            batch.bases.append((name, Self.base(of: record)))
            return false
        }
        return true
    }

    /// Records this device synced that the server did not return: after a full fetch of the private
    /// zone they were lost by the server (a deleted zone, a new or restored server) and are queued
    /// again; on the public database's full resync, and after a change token that expired, they
    /// were deleted.
    private func collectMissing(_ fetched: FetchedRecords, present: Set<String>, batch: inout PendingBatch, changes: inout SyncChanges) async throws {
        guard fetched.missing != .ignored else { return }
        let present = present.union(fetched.deletions.map(\.name))
        let synced = try bookkeeping.baseNames().filter { !present.contains($0.0) && (fetched.only?.contains($0.1) ?? true) }
        if fetched.missing == .expired {
            let bases = try bookkeeping.bases(synced.map(\.0))
            let deleted = synced.filter { bases[$0.0]?.record.recordChangeTag != nil }.map { (name: $0.0, recordType: Optional($0.1)) }
            try collectDeletions(deleted, batch: &batch, changes: &changes)
            return
        }
        guard fetched.missing == .lost else {
            for (name, type) in synced {
                changes.deleted.append(deleted(name, recordType: type))
                batch.removed.append(name)
            }
            return
        }
        let bases = try bookkeeping.bases(synced.map(\.0))
        let lost = synced.compactMap { name, type in bases[name].map { (name, type, $0.modificationDate) } }
        let queued = try await requeue(lost, batch: &batch)
        for (name, _, _) in lost {
            guard queued.contains(name), let base = bases[name] else {
                batch.removed.append(name)  // gone here too: nothing to send
                continue
            }
            // The base keeps its fields (the merge base if another device re-creates the record
            // first) but loses its change tag, so the upload creates the record.
            var unsynced = base
            unsynced.record.recordChangeTag = nil
            batch.bases.append((name, unsynced))
        }
        if !batch.requeue.isEmpty { logger.info("the server lost \(batch.requeue.count) records of this device; they are queued again") }
    }

    /// Queues a save of every field of the local entities of records (each dated `editedAt`, the time
    /// of the version it holds, so it never looks newer than an edit made elsewhere since); returns
    /// the record names whose entity exists. Referenced entities are not queued with them: those the
    /// server lost are in `records` too.
    @discardableResult
    private func requeue(_ records: [(name: String, recordType: String, editedAt: Date?)], batch: inout PendingBatch) async throws -> Set<String> {
        var found: Set<String> = []
        for (name, recordType, editedAt) in records {
            guard let description = descriptions[recordType], let entity = try await delegateEntity(ofType: description.type, syncID: name)
            else { continue }
            found.insert(name)
            var visited: Set<ObjectIdentifier> = []
            try await collectSave(
                entity, keys: nil, owner: nil, editedAt: editedAt ?? editTime(), followReferences: false, visited: &visited,
                into: &batch.requeue)
        }
        return found
    }

    /// The fetched deletions, as deletions for the delegate; an edit waiting in the outbox for a
    /// deleted record loses (the deletion wins), is dropped and reported as a conflict after the commit.
    private func collectDeletions(
        _ deletions: [(name: String, recordType: String?)], batch: inout PendingBatch, changes: inout SyncChanges
    ) throws {
        for (name, recordType) in deletions where !batch.removed.contains(name) && !configuration.ignoreKeys.contains(name) {
            let base = try bookkeeping.base(name)
            let type = recordType ?? base?.recordType
            changes.deleted.append(deleted(name, recordType: type))
            batch.removed.append(name)
            for entry in try bookkeeping.outboxEntries(for: name) {
                batch.dropped.append(entry.seq)
                if entry.kind == .save { batch.discarded.append(deletionConflict(entry, base: base)) }
            }
        }
    }

    /// A deletion for the delegate, with the entity type of its record type when it is one of the controller's.
    func deleted(_ name: String, recordType: String?) -> SyncChanges.Deleted {
        SyncChanges.Deleted(recordType: recordType, entityType: recordType.flatMap { descriptions[$0]?.type }, syncID: name)
    }

    /// The report of an edit discarded because the record was deleted on the server.
    func deletionConflict(_ entry: OutboxEntry, base: BaseRecord?) -> SyncConflict {
        var local = base?.record.fields ?? [:]
        for (key, value) in entry.fields { local[key] = value }
        for key in entry.cleared { local[key] = nil }
        let versions = ConflictVersions(
            recordType: entry.recordType, recordName: entry.recordName, base: base?.record.fields, local: local, server: [:],
            keys: Set(entry.fields.keys).union(entry.cleared), localEditDate: entry.editedAt, serverModificationDate: nil)
        var discarded: [String: FieldValue?] = [:]
        for key in versions.keys { discarded[key] = local[key] }
        return SyncConflict(versions: versions, resolved: [:], discardedLocal: discarded, discardedServer: [:], serverRecordDeleted: true)
    }

    /// The second pass: records that referenced a target which has now arrived get their references applied again.
    private func relinkDangling(
        arrived: [String], batch: inout PendingBatch, changes: inout SyncChanges, applied: inout [String: EntityRef]
    ) async throws {
        let alreadyChanged = Set((changes.inserted + changes.updated).map(\.record.recordID.recordName))
        for (target, source) in try bookkeeping.danglingSources(of: arrived) {
            batch.arrived.append(target)
            guard !alreadyChanged.contains(source), let base = try bookkeeping.base(source), let description = descriptions[base.recordType]
            else { continue }
            guard let entity = try await delegateEntity(ofType: description.type, syncID: source) else { continue }
            let record = try StratusClient.Record(wire: base.record, zoneID: zoneID)
            unresolvedTargets = []
            try await applyReferences(of: record, to: entity, description: description, batch: &applied, fetchReferences: false)
            batch.dangling += unresolvedTargets.map { ($0, source) }
            if !changes.updated.contains(where: { $0.record.recordID.recordName == source }) {
                changes.updated.append(SyncChanges.Applied(entity: entity.entity, record: record))
            }
        }
    }
}
