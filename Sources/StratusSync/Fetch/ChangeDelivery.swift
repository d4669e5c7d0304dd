import Foundation
import StratusClient
import StratusLogging
import StratusWire

/// One delivery to the local store: fetched records and deletions applied to entities (fields
/// first, then references, so order within the batch does not matter), handed to the delegate,
/// and committed on its ``FinishSync`` (then `afterCommit` runs, such as acknowledging the public
/// database's DeleteQueue entries).
///
/// A write-back (``PendingBatch/Kind/writeBack``) delivers records this device uploaded after
/// resolving a conflict, so the store receives the resolved values the same way.
struct ChangeDelivery {
    private let fetched: FetchedRecords
    private var batch: PendingBatch
    private var changes = SyncChanges()
    private var update = EntityUpdate()
    private let afterCommit: (@Sendable () async throws -> Void)?

    /// A delivery of `fetched`, committing `batch`.
    init(_ fetched: FetchedRecords, batch: PendingBatch, afterCommit: (@Sendable () async throws -> Void)? = nil) {
        self.fetched = fetched
        self.batch = batch
        self.afterCommit = afterCommit
    }

    /// Applies, hands over and (once the delegate finishes, or at once when nothing changed) commits.
    ///
    /// - Returns: The changes delivered.
    mutating func run(on sync: isolated SyncController) async throws -> SyncChanges {
        let records = fetched.records.sorted { $0.recordID.recordName < $1.recordID.recordName }
        for (record, entity, description) in try await applyFields(records, on: sync) {
            let unresolved = try await update.applyReferences(of: record, to: entity, description: description, fetch: false, on: sync)
            batch.dangling += unresolved.map { ($0, record.recordID.recordName) }
        }
        try await relinkDangling(arrived: Array(update.known.keys), on: sync)
        try await collectMissing(present: Set(records.map(\.recordID.recordName)), on: sync)
        try collectDeletions(fetched.deletions, on: sync)
        if batch.kind == .fetch { sync.machine.fetched() }
        sync.logger.debug(
            "\(batch.kind == .fetch ? "fetched" : "wrote back") \(changes.inserted.count) new, \(changes.updated.count) updated, "
                + "\(changes.deleted.count) deleted, \(batch.requeue.count) queued again")
        return try await handOver(on: sync)
    }

    /// Applies the plain fields of the records that are applied; returns them with their entities,
    /// for the reference pass.
    private mutating func applyFields(
        _ records: [StratusClient.Record], on sync: isolated SyncController
    ) async throws -> [(StratusClient.Record, EntityRef, EntityDescription)] {
        var toLink: [(StratusClient.Record, EntityRef, EntityDescription)] = []
        let names = records.map(\.recordID.recordName)
        let bases = try sync.bookkeeping.bases(names)
        let queued = try QueuedEntries(names, in: sync.bookkeeping)
        for record in records {
            let name = record.recordID.recordName
            guard let description = sync.descriptions[record.recordType], fetched.only?.contains(record.recordType) ?? true else {
                sync.logger.debug("ignoring record \(name) of type \(record.recordType)")
                continue
            }
            guard !sync.configuration.ignoreKeys.contains(name) else {
                sync.logger.debug("ignoring record \(name): its sync ID is in ignoreKeys")
                continue
            }
            guard try await shouldApply(record, base: bases[name], queued: queued, on: sync) else { continue }
            let existing = try await sync.delegateEntity(ofType: description.type, syncID: name)
            let entity: EntityRef
            if let existing {
                entity = existing
            } else {
                entity = try await sync.delegateCreateEntity(ofType: description.type)
            }
            try await EntityUpdate.applyFields(of: record, to: entity, description: description, on: sync)
            update.known[name] = entity
            toLink.append((record, entity, description))
            let change = SyncChanges.Applied(entity: entity.entity, record: record)
            if existing == nil { changes.inserted.append(change) } else { changes.updated.append(change) }
            if batch.kind == .writeBack {
                batch.writeBacks.append(name)
            } else {
                batch.bases.append((name, BaseRecord(saved: record)))
            }
        }
        return toLink
    }

    /// Hands the changes to the delegate with the commit, or commits at once when nothing changed.
    private func handOver(on sync: isolated SyncController) async throws -> SyncChanges {
        let pending = batch
        let afterCommit = afterCommit
        let commit: @Sendable () async throws -> Void = { [sync] in
            guard try await sync.commit(pending) else { return }
            // The conflicts first, then the answers of the saves waiting for the dropped entries.
            for conflict in pending.discarded { await sync.delegate.syncController(sync, didResolve: conflict) }
            await sync.dropsReported(pending.dropped)
            try await afterCommit?()
        }
        let changes = changes
        if changes.isEmpty {
            try await commit()
            return changes
        }
        await SyncController.$delivering.withValue(true) {
            await sync.delegate.syncController(sync, didFinishSync: changes, finishSync: FinishSync(commit: commit))
        }
        return changes
    }

    /// Whether a fetched record is applied: not when this device already has that version, when an
    /// upload wrote a newer one meanwhile, or when an edit waits (its upload meets this version as a
    /// conflict and merges it). A record the server holds in a version older than this device's
    /// (a server restored from an earlier state) is not applied either: the device's version is
    /// queued to go back up.
    private mutating func shouldApply(
        _ record: StratusClient.Record, base: BaseRecord?, queued: QueuedEntries, on sync: isolated SyncController
    ) async throws -> Bool {
        let name = record.recordID.recordName
        if batch.kind == .fetch, !fetched.full, let tag = base?.record.recordChangeTag, tag == record.recordChangeTag {
            return false  // this device's own write, or a version already applied
        }
        if sync.generations.isNewer(name, than: batch.generation) {
            return false  // uploaded while this fetch was under way: the device holds a newer version
        }
        let pending = try queued.entries(for: name)
        if !pending.isEmpty {
            let idle = try pending.allSatisfy { entry in
                guard entry.kind == .save else { return false }
                return try entry.outgoingRecord(base: base, zoneID: sync.zoneID).sendsNothing(over: base)
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
            try await requeue([(name, record.recordType, held)], on: sync)
            batch.bases.append((name, BaseRecord(saved: record)))
            return false
        }
        return true
    }
}

extension ChangeDelivery {
    /// Records this device synced that the server did not return: after a full fetch of the private
    /// zone they were lost by the server (a deleted zone, a new or restored server) and are queued
    /// again; on the public database's full resync, and after a change token that expired, they
    /// were deleted.
    private mutating func collectMissing(present: Set<String>, on sync: isolated SyncController) async throws {
        guard fetched.missing != .ignored else { return }
        let present = present.union(fetched.deletions.map(\.name))
        let synced = try sync.bookkeeping.baseNames().filter { !present.contains($0.0) && (fetched.only?.contains($0.1) ?? true) }
        if fetched.missing == .expired {
            let bases = try sync.bookkeeping.bases(synced.map(\.0))
            let deleted = synced.filter { bases[$0.0]?.record.recordChangeTag != nil }.map { (name: $0.0, recordType: Optional($0.1)) }
            try collectDeletions(deleted, on: sync)
            return
        }
        guard fetched.missing == .lost else {
            for (name, type) in synced {
                changes.deleted.append(Self.deleted(name, recordType: type, on: sync))
                batch.removed.append(name)
            }
            return
        }
        let bases = try sync.bookkeeping.bases(synced.map(\.0))
        let lost = synced.compactMap { name, type in bases[name].map { (name, type, $0.modificationDate) } }
        let queued = try await requeue(lost, on: sync)
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
        if !batch.requeue.isEmpty { sync.logger.info("the server lost \(batch.requeue.count) records of this device; they are queued again") }
    }

    /// Queues a save of every field of the local entities of records (each dated `editedAt`, the time
    /// of the version it holds, so it never looks newer than an edit made elsewhere since); returns
    /// the record names whose entity exists. Referenced entities are not queued with them: those the
    /// server lost are in `records` too.
    @discardableResult
    private mutating func requeue(
        _ records: [(name: String, recordType: String, editedAt: Date?)], on sync: isolated SyncController
    ) async throws -> Set<String> {
        var found: Set<String> = []
        for (name, recordType, editedAt) in records {
            guard let description = sync.descriptions[recordType],
                let entity = try await sync.delegateEntity(ofType: description.type, syncID: name)
            else { continue }
            found.insert(name)
            var collector = OutboxCollector()
            try await collector.save(entity, OutboxCollector.Options(editedAt: editedAt ?? sync.editTime(), followReferences: false), on: sync)
            batch.requeue += collector.entries
        }
        return found
    }

    /// The fetched deletions, as deletions for the delegate; an edit waiting in the outbox for a
    /// deleted record loses (the deletion wins), is dropped and reported as a conflict after the commit.
    private mutating func collectDeletions(_ deletions: [(name: String, recordType: String?)], on sync: isolated SyncController) throws {
        for (name, recordType) in deletions where !batch.removed.contains(name) && !sync.configuration.ignoreKeys.contains(name) {
            let base = try sync.bookkeeping.base(name)
            let type = recordType ?? base?.recordType
            changes.deleted.append(Self.deleted(name, recordType: type, on: sync))
            batch.removed.append(name)
            for entry in try sync.bookkeeping.outboxEntries(for: name) {
                batch.dropped.append(entry.seq)
                if entry.kind == .save { batch.discarded.append(Self.deletionConflict(entry, base: base)) }
            }
        }
    }

    /// A deletion for the delegate, with the entity type of its record type when it is one of the controller's.
    private static func deleted(_ name: String, recordType: String?, on sync: isolated SyncController) -> SyncChanges.Deleted {
        SyncChanges.Deleted(recordType: recordType, entityType: recordType.flatMap { sync.descriptions[$0]?.type }, syncID: name)
    }

    /// The report of an edit discarded because the record was deleted on the server.
    private static func deletionConflict(_ entry: OutboxEntry, base: BaseRecord?) -> SyncConflict {
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
    private mutating func relinkDangling(arrived: [String], on sync: isolated SyncController) async throws {
        let alreadyChanged = Set((changes.inserted + changes.updated).map(\.record.recordID.recordName))
        for (target, source) in try sync.bookkeeping.danglingSources(of: arrived) {
            batch.arrived.append(target)
            guard !alreadyChanged.contains(source), let base = try sync.bookkeeping.base(source),
                let description = sync.descriptions[base.recordType]
            else { continue }
            guard let entity = try await sync.delegateEntity(ofType: description.type, syncID: source) else { continue }
            let record = try StratusClient.Record(wire: base.record, zoneID: sync.zoneID)
            let unresolved = try await update.applyReferences(of: record, to: entity, description: description, fetch: false, on: sync)
            batch.dangling += unresolved.map { ($0, source) }
            if !changes.updated.contains(where: { $0.record.recordID.recordName == source }) {
                changes.updated.append(SyncChanges.Applied(entity: entity.entity, record: record))
            }
        }
    }
}

/// The outbox entries of a delivery's records, read in one transaction: each record's check uses
/// them while nothing has written to the outbox since (a save queued while the delivery waits for
/// the delegate), and reads its own again otherwise, so the check sees what it saw reading one by one.
struct QueuedEntries {
    private let bookkeeping: SyncBookkeeping
    private let version: UInt64
    private let entries: [String: [OutboxEntry]]

    init(_ names: [String], in bookkeeping: SyncBookkeeping) throws {
        self.bookkeeping = bookkeeping
        version = bookkeeping.outboxVersion
        entries = try bookkeeping.outboxEntries(for: names)
    }

    /// A record's entries, as the outbox holds them now.
    func entries(for name: String) throws -> [OutboxEntry] {
        guard bookkeeping.outboxVersion == version else { return try bookkeeping.outboxEntries(for: name) }
        return entries[name] ?? []
    }
}
