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

/// The one upload path of saves: consecutive saves from the head of the outbox in one
/// `records/modify` — one entry (after a `save()`) or up to 200 (a bulk upload) alike.
///
/// Each round sends what is pending and settles each answer: the acknowledged saves get their
/// last-synced versions and leave the outbox in one transaction (with a write-back marker after a
/// resolved conflict, so the store receives the resolved values even if the process ends first); a
/// conflict is resolved by the policy and the result goes in the next round, up to five times while
/// the server keeps moving; an update whose record is gone stops the drain for a fetch, or, when a
/// fetch committed since said nothing of it, creates the record again; a refusal drops the entry
/// and reports it. A transient failure of one record stops the drain once the others are handled.
struct SaveUpload {
    /// One save on its way.
    struct Pending {
        /// The entry as queued.
        var entry: OutboxEntry
        /// The entry with its large `Data` fields staged as assets.
        var prepared: OutboxEntry
        /// The last-synced version: the record's change tag, and the merge base of a conflict.
        var base: BaseRecord?
        /// What the next request sends.
        var record: StratusClient.Record
        /// Whether a conflict was resolved on the way (the store must receive the result).
        var conflicted = false
        /// Requests sent for it so far, this one included.
        var attempts = 1
    }

    /// The most requests for one save while the server keeps changing the record.
    static let maximumAttempts = 5

    private let entries: [OutboxEntry]
    private var pending: [Pending] = []
    /// A record gone from the server that waits for a fetch.
    private var gone: RecordGoneFromServer?
    /// The last transient failure: the entry stays queued.
    private var transient: (any Error)?

    /// An upload of consecutive saves of distinct records.
    init(_ entries: [OutboxEntry]) {
        self.entries = entries
    }

    /// Sends the saves and settles each.
    ///
    /// - Throws: ``RecordGoneFromServer`` when a record must wait for a fetch; the transient error of
    ///   a record (after the others are handled); what the request or the bookkeeping throws.
    mutating func run(on sync: isolated SyncController) async throws {
        let bases = try sync.bookkeeping.bases(entries.map(\.recordName))
        for entry in entries {
            let upload = try Self.pending(entry, base: bases[entry.recordName], on: sync)
            guard !upload.record.sendsNothing(over: upload.base) else {
                try sync.finish(entry, .saved(upload.record))
                await sync.reportSave(entry, record: upload.record, error: nil)
                continue
            }
            pending.append(upload)
        }
        while !pending.isEmpty {
            let sent = pending
            pending = []
            let results = try await sync.database.modifyRecords(saving: sent.map(\.record), deleting: [], atomically: false)
            try await acknowledge(sent, results.saveResults, on: sync)
            for upload in sent {
                try await handle(upload, results.saveResults[upload.record.recordID], on: sync)
            }
        }
        if let gone { throw gone }
        if let transient { throw transient }
    }

    /// An entry ready to send: its assets staged, the record made from its base.
    private static func pending(_ entry: OutboxEntry, base: BaseRecord?, on sync: isolated SyncController) throws -> Pending {
        let prepared = try sync.assets.preparing(entry, base: base, description: sync.descriptions[entry.recordType])
        return Pending(entry: entry, prepared: prepared, base: base, record: try prepared.outgoingRecord(base: base, zoneID: sync.zoneID))
    }

    /// The acknowledged saves: their last-synced versions and outbox removals in one transaction
    /// (two per record made bulk uploads crawl), written only now that the server has them; then
    /// the delegate hears of them in one call, and their callers are woken.
    private func acknowledge(
        _ sent: [Pending], _ results: [RecordID: Result<StratusClient.Record, StratusError>], on sync: isolated SyncController
    ) async throws {
        let saved: [(Pending, StratusClient.Record)] = sent.compactMap { upload in
            guard case .success(let record)? = results[upload.record.recordID] else { return nil }
            return (upload, record)
        }
        guard !saved.isEmpty else { return }
        try sync.bookkeeping.commitUploads(
            bases: saved.map { ($1.recordID.recordName, BaseRecord(saved: $1)) }, removingOutbox: saved.map(\.0.entry.seq),
            writeBacks: saved.filter(\.0.conflicted).map(\.1.recordID.recordName))
        try await sync.settleUploads(saved.map { ($0.0.entry, $0.1) }, measuresSkew: true)
        if sent.count == 1, let entry = saved.first?.0.entry {
            sync.logger.debug("saved \(entry.recordType) \(entry.recordName)")
        } else {
            sync.logger.debug("uploaded a batch of \(sent.count) records")
        }
    }

    /// Settles a save the server did not acknowledge.
    private mutating func handle(
        _ upload: Pending, _ result: Result<StratusClient.Record, StratusError>?, on sync: isolated SyncController
    ) async throws {
        let entry = upload.entry
        switch result {
        case .success?:
            return
        case .failure(let error)? where error.code == .serverRecordChanged:
            try await resolveConflict(upload, error, on: sync)
        case .failure(let error)? where error.code == .unknownItem && upload.record.recordChangeTag != nil:
            try recordGone(upload, on: sync)
        case .failure(let error)? where error.isTransient:
            transient = error
        case .failure(let error)?:
            let refusal = SyncError(.rejected, "the server refused record '\(entry.recordName)' of type '\(entry.recordType)'", underlying: error)
            try sync.finish(entry, .refused(refusal))
            await sync.reportSave(entry, record: nil, error: refusal)
        case nil:
            transient = StratusError(.serverResponseLost, "the server did not answer for record '\(entry.recordName)'")
        }
    }

    /// A conflict: the policy resolves base, local and server versions; the result goes in the next
    /// round, or, when the server's version stands, that version is what was saved.
    private mutating func resolveConflict(_ upload: Pending, _ error: StratusError, on sync: isolated SyncController) async throws {
        let entry = upload.entry
        sync.logger.debug("conflict on \(entry.recordType) \(entry.recordName) (attempt \(upload.attempts))")
        // A fetch committed while the request was out may have dropped the entry (its record's
        // deletion won, and the base went with it): sent again, its fields alone would create a
        // record of them (the sync simulator, seed 262).
        guard try sync.bookkeeping.isQueued(entry) else {
            try sync.finish(entry, .saved(nil))
            return
        }
        let server: StratusClient.Record
        if let known = error.serverRecord {
            server = known
        } else {
            server = try await sync.database.record(for: upload.record.recordID)
        }
        guard let next = try await Self.resolve(upload.prepared, base: upload.base, server: server, on: sync) else {
            let name = server.recordID.recordName
            try sync.bookkeeping.commitUploads(bases: [(name, BaseRecord(saved: server))], removingOutbox: [entry.seq], writeBacks: [name])
            try await sync.settleUpload(entry, server, measuresSkew: false)
            return
        }
        guard upload.attempts < Self.maximumAttempts else {
            let refusal = SyncError(
                .conflictUnresolved, "record '\(entry.recordName)' kept changing on the server; gave up after \(Self.maximumAttempts) attempts")
            try sync.finish(entry, .refused(refusal))
            await sync.reportSave(entry, record: nil, error: refusal)
            return
        }
        var retry = upload
        retry.record = next
        retry.conflicted = true
        retry.attempts += 1
        pending.append(retry)
    }

    /// An update found its record gone: the first time, stop and let a fetch decide; if a fetch
    /// committed since and neither delivered a deletion nor started a recovery, the server lost the
    /// record within the same zone, so it is created again in the next round: the base keeps its
    /// fields (the create sends them all) and loses its change tag.
    private mutating func recordGone(_ upload: Pending, on sync: isolated SyncController) throws {
        let entry = upload.entry
        // A fetch that ran meanwhile may have applied the record's deletion: its base is gone, and
        // the entry dropped (the deletion won); then nothing is created again.
        guard sync.machine.recordGone(entry.recordName) == .recreate, var unsynced = try sync.bookkeeping.base(entry.recordName),
            try sync.bookkeeping.isQueued(entry)
        else {
            gone = gone ?? RecordGoneFromServer(recordName: entry.recordName)
            return
        }
        sync.logger.info("record '\(entry.recordName)' is gone from the server although its zone is not; creating it again")
        unsynced.record.recordChangeTag = nil
        try sync.bookkeeping.setBase(entry.recordName, unsynced)
        pending.append(try Self.pending(entry, base: unsynced, on: sync))
    }

    /// Resolves a conflict by the policy (reporting what a side lost to the delegate); returns the
    /// record to save next, or `nil` when the server's version stands.
    private static func resolve(
        _ entry: OutboxEntry, base: BaseRecord?, server: StratusClient.Record, on sync: isolated SyncController
    ) async throws -> StratusClient.Record? {
        let baseFields = base?.record.fields
        var local = baseFields ?? server.fields
        for (key, value) in entry.fields { local[key] = value }
        for key in entry.cleared { local[key] = nil }
        var keys = Set(entry.fields.keys).union(entry.cleared)
        if let description = sync.descriptions[entry.recordType] { keys.formUnion(description.remoteKeys) }
        let versions = ConflictVersions(
            recordType: entry.recordType, recordName: entry.recordName, base: baseFields, local: local, server: server.fields, keys: keys,
            localEditDate: entry.editedAt, serverModificationDate: server.modificationDate)
        let resolved = ConflictResolver.resolve(versions, policy: sync.configuration.conflictPolicy)
        let report = ConflictResolver.report(versions, resolved: resolved)
        if !report.discardedLocal.isEmpty || !report.discardedServer.isEmpty {
            sync.logger.info(
                "conflict on \(entry.recordType) \(entry.recordName): kept \(resolved.keys.sorted()), "
                    + "discarded local \(report.discardedLocal.keys.sorted()), server \(report.discardedServer.keys.sorted())")
            await sync.delegate.syncController(sync, didResolve: report)
        }
        var next = server
        for key in keys where server.fields[key] != resolved[key] {
            next[key] = resolved[key]
        }
        return next.changedKeys().isEmpty ? nil : next
    }
}
