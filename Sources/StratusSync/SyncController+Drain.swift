import Foundation
import StratusClient
import StratusLogging
import StratusWire

/// Thrown by an upload whose record is gone from the server: the drain stops, and a fetch decides
/// (another device's deletion wins, or a recovery re-creates the record).
struct RecordGoneFromServer: Error, CustomStringConvertible {
    var recordName: String
    var description: String { "record '\(recordName)' is no longer on the server; fetching before uploading it again" }
}

extension SyncController {
    // MARK: Drain

    /// Uploads the outbox in order, one entry at a time; joins a drain already running. Before it
    /// returns, the values conflict resolutions produced reach the local store (``deliverWriteBacks()``).
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
            try await drainOutbox()
        } catch let gone as RecordGoneFromServer {
            logger.info("\(gone)")  // the sync that ran the drain fetches next; after a save, a follow-up sync does
        } catch {
            logger.info("upload stopped, changes stay queued: \(error)")
            noteContradiction(error)
            if Self.mayHaveBeenApplied(error) {
                do {
                    try bookkeeping.setUploadUncertain(true)
                } catch {
                    logger.error("could not record an unanswered upload: \(error)")
                }
            }
            if !(error is CancellationError) { scheduleReconnect() }
            failure = error
        }
        do {
            try await deliverWriteBacks()
        } catch {
            logger.error("could not hand resolved values to the store; they go with the next drain: \(error)")
            failure = failure ?? error
        }
        storeSkew()
        drainError = failure
        if outcomes.count > 10_000 { outcomes = [:] }
        machine.endWork(pending: (try? bookkeeping.outboxCount()) ?? machine.status.pendingCount, error: failure.map { "\($0)" })
        publish()
    }

    /// Whether a failed upload may have reached the server: the connection broke or timed out after
    /// the request could have gone out, or the task was cancelled meanwhile. An answer (an error
    /// code from the server) or no network at all means it was not applied.
    static func mayHaveBeenApplied(_ error: any Error) -> Bool {
        if error is SyncError || error is RecordGoneFromServer { return false }
        guard let error = error as? StratusError else { return true }
        return error.code == .networkFailure || error.code == .serverResponseLost
    }

    /// Drains for a save or an upload (not a sync): a record found gone gets the fetch it waits for
    /// from a sync in the background.
    ///
    /// After an upload that got no answer, the next one waits for a sync instead: that upload may
    /// have been applied, and another device may have deleted its record since; sent again blindly,
    /// a create would bring the deleted record back (the sync simulator found it). The sync fetches
    /// first, so such a deletion wins (decision 28) before anything is sent.
    func drainAfterQueueing() async {
        if (try? bookkeeping.uploadUncertain) == true {
            scheduleFollowUpSync()
            return
        }
        await drain()
        if machine.refetchRequested { scheduleFollowUpSync() }
    }

    private func drainOutbox() async throws {
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
                try await unanswered(batch) { try await uploadBatch(batch) }
                continue
            }
            inFlightSeq = entry.seq
            defer { inFlightSeq = nil }
            do {
                try finish(entry, .success(try await unanswered([entry]) { try await uploadSave(entry) }))
            } catch let error as SyncError {
                try finish(entry, .failure(error))
                await reportSave(entry, record: nil, error: error)
            }
        }
    }

    /// Runs an upload of `entries`; when it fails without an answer, each new record among them
    /// keeps what was sent as its base, without a change tag: if the create was applied, the retry
    /// meets it as a conflict, and the three-way merge needs that version as the base — without
    /// one, every field looked changed on both sides and a later edit made here lost to another
    /// device's edit of another field (the sync simulator, seed 280).
    private func unanswered<Result>(_ entries: [OutboxEntry], _ upload: () async throws -> Result) async throws -> Result {
        do {
            return try await upload()
        } catch where Self.mayHaveBeenApplied(error) {
            for entry in entries where entry.kind == .save {
                guard try bookkeeping.base(entry.recordName) == nil else { continue }
                try bookkeeping.setBase(entry.recordName, Self.base(of: try outgoingRecord(entry, base: nil)))
            }
            throw error
        }
    }

    /// The record an entry uploads: its last-synced version with the entry's changes, or a new record
    /// (with the fields of a version the server lost, if any) to create.
    func outgoingRecord(_ entry: OutboxEntry, base: BaseRecord?) throws -> StratusClient.Record {
        var record: StratusClient.Record
        if let base {
            record = try StratusClient.Record(wire: base.record, zoneID: zoneID)
        } else {
            record = StratusClient.Record(recordType: entry.recordType, recordID: RecordID(recordName: entry.recordName, zoneID: zoneID))
        }
        Self.apply(entry, to: &record)
        return record
    }

    /// Whether an entry's record needs no request: the server has it and nothing differs.
    static func sendsNothing(_ record: StratusClient.Record, base: BaseRecord?) -> Bool {
        base?.record.recordChangeTag != nil && record.changedKeys().isEmpty
    }

    /// Uploads one save. Throws ``SyncError`` for a refusal (the entry is dropped and reported),
    /// ``RecordGoneFromServer`` when the record is not on the server any more; any other error
    /// leaves the entry queued.
    ///
    /// The new last-synced version and the entry's removal are written in one transaction; after a
    /// conflict it also marks the record for write-back, so the resolved values reach the store
    /// even if the process ends first.
    func uploadSave(_ entry: OutboxEntry) async throws -> StratusClient.Record? {
        // A fetch committed while this drain waited (a batch's answer) may have dropped the entry: its
        // record's deletion won, and the base went with it. Sent now, the entry's fields alone would
        // create a record of them (the sync simulator, seed 262: notes without a title appeared).
        guard try bookkeeping.outboxEntries(for: entry.recordName).contains(where: { $0.seq == entry.seq }) else { return nil }
        let base = try bookkeeping.base(entry.recordName)
        let entry = try preparingAssets(entry, base: base)
        var record = try outgoingRecord(entry, base: base)
        guard !Self.sendsNothing(record, base: base) else {
            await reportSave(entry, record: record, error: nil)
            return record
        }
        var conflicted = false
        for attempt in 1...5 {
            let results = try await database.modifyRecords(saving: [record], deleting: [], atomically: false)
            switch results.saveResults[record.recordID] {
            case .success(let saved)?:
                try await settleUpload(entry, saved, conflicted: conflicted, writtenNow: true)
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
                    try await settleUpload(entry, server, conflicted: true, writtenNow: false)
                    return server
                }
                record = next
            case .failure(let error)? where error.code == .unknownItem && record.recordChangeTag != nil:
                try recordGone(entry)
                return try await uploadSave(entry)
            case .failure(let error)?:
                try Self.rethrowIfTransient(error)
                throw SyncError(.rejected, "the server refused record '\(entry.recordName)' of type '\(entry.recordType)'", underlying: error)
            case nil:
                throw StratusError(.serverResponseLost, "the server did not answer for record '\(entry.recordName)'")
            }
        }
        throw SyncError(.conflictUnresolved, "record '\(entry.recordName)' kept changing on the server; gave up after 5 attempts")
    }

    /// An update found its record gone: the first time, stop and let a fetch decide; if a fetch
    /// committed since and neither delivered a deletion nor started a recovery, the server lost the
    /// record within the same zone, so it is created again: the base keeps its fields (the create
    /// sends them all) and loses its change tag.
    private func recordGone(_ entry: OutboxEntry) throws {
        // A fetch that ran meanwhile may have applied the record's deletion: its base is gone, and
        // the entry dropped (the deletion won); then nothing is created again.
        guard machine.recordGone(entry.recordName) == .recreate, var unsynced = try bookkeeping.base(entry.recordName),
            try bookkeeping.outboxEntries(for: entry.recordName).contains(where: { $0.seq == entry.seq })
        else {
            throw RecordGoneFromServer(recordName: entry.recordName)
        }
        logger.info("record '\(entry.recordName)' is gone from the server although its zone is not; creating it again")
        unsynced.record.recordChangeTag = nil
        try bookkeeping.setBase(entry.recordName, unsynced)
    }

    /// Writes what an acknowledged save means, in one transaction: the new last-synced version, the
    /// entry out of the outbox, and (after a conflict) the write-back marker; then the sync ID and
    /// date go into the entity, and the delegate hears of it. Only a record `writtenNow` (not the
    /// server's version that stood) measures the clock skew.
    private func settleUpload(_ entry: OutboxEntry, _ saved: StratusClient.Record, conflicted: Bool, writtenNow: Bool) async throws {
        let name = saved.recordID.recordName
        try bookkeeping.commitUploads(bases: [(name, Self.base(of: saved))], removingOutbox: [entry.seq], writeBacks: conflicted ? [name] : [])
        try didRemember(saved, measuresSkew: writtenNow)
        await writeBack(saved, entryName: entry.recordName)
        await reportSave(entry, record: saved, error: nil)
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

    /// A saved record as a last-synced version.
    static func base(of saved: StratusClient.Record) -> BaseRecord {
        BaseRecord(recordType: saved.recordType, record: saved.wireRecord, modificationDate: saved.modificationDate)
    }

    /// What follows storing a saved record's last-synced version: the clock skew (measured on a
    /// record this device has just written, whose date is the server's "now"), the held assets, the generation.
    func didRemember(_ saved: StratusClient.Record, measuresSkew: Bool = true) throws {
        if measuresSkew, let date = saved.modificationDate { skew = date.timeIntervalSince(configuration.now()) }
        try noteSavedAssets(saved)
        bumpGeneration(saved.recordID.recordName)
    }

    func bumpGeneration(_ name: String) {
        generation += 1
        baseGenerations[name] = generation
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
