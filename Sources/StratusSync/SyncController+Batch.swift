import Foundation
import StratusClient
import StratusLogging
import StratusWire

extension SyncController {
    /// The head of the outbox that can go in one `records/modify`: consecutive saves, or
    /// consecutive deletions, of distinct records.
    static func batchable(_ head: [OutboxEntry]) -> [OutboxEntry] {
        var names: Set<String> = []
        var batch: [OutboxEntry] = []
        for entry in head {
            guard entry.kind == head[0].kind, names.insert(entry.recordName).inserted else { break }
            batch.append(entry)
        }
        return batch
    }

    /// Records what became of an entry and removes it from the outbox.
    func finish(_ entry: OutboxEntry, _ outcome: Result<StratusClient.Record?, SyncError>) throws {
        try bookkeeping.removeOutboxEntry(entry.seq)
        settle(entry, outcome)
    }

    /// Records what became of an entry already removed from the outbox.
    func settle(_ entry: OutboxEntry, _ outcome: Result<StratusClient.Record?, SyncError>) {
        outcomes[entry.seq] = outcome
        liveEntities[entry.recordName] = nil
        machine.serverMayHaveChanged()
        // One entry left the outbox: no count(*) per record, which made draining a large outbox quadratic.
        machine.outboxChanged(pending: max(0, machine.status.pendingCount - 1))
        publish()
    }

    /// Uploads several saves in one request; conflicts fall back to the one-by-one path, which
    /// resolves them. A transient failure of any record stops the drain after the others are handled.
    func uploadBatch(_ batch: [OutboxEntry]) async throws {
        var records: [StratusClient.Record] = []
        var entries: [RecordID: OutboxEntry] = [:]
        let bases = try bookkeeping.bases(batch.map(\.recordName))
        for entry in batch {
            let base = bases[entry.recordName]
            let entry = try preparingAssets(entry, base: base)
            let record = try outgoingRecord(entry, base: base)
            if Self.sendsNothing(record, base: base) {
                try finish(entry, .success(record))
                await reportSave(entry, record: record, error: nil)
                continue
            }
            records.append(record)
            entries[record.recordID] = entry
        }
        guard !records.isEmpty else { return }
        let results = try await database.modifyRecords(saving: records, deleting: [], atomically: false)
        // The acknowledged saves: their last-synced versions and outbox removals in one transaction
        // (two per record made bulk uploads crawl), written only now that the server has them.
        let saved: [(OutboxEntry, StratusClient.Record)] = records.compactMap { record in
            guard let entry = entries[record.recordID], case .success(let saved)? = results.saveResults[record.recordID] else { return nil }
            return (entry, saved)
        }
        try bookkeeping.commitUploads(
            bases: saved.map { ($1.recordID.recordName, Self.base(of: $1)) }, removingOutbox: saved.map { $0.0.seq })
        for (entry, record) in saved {
            try didRemember(record)
            await writeBack(record, entryName: entry.recordName)
            await reportSave(entry, record: record, error: nil)
            settle(entry, .success(record))
        }
        var transient: (any Error)?
        for record in records {
            guard let entry = entries[record.recordID] else { continue }
            switch results.saveResults[record.recordID] {
            case .success?:
                continue
            case .failure(let error)? where error.code == .serverRecordChanged || error.code == .unknownItem:
                // The one-by-one path resolves a conflict, and finds out what became of a record gone from the server.
                do {
                    try finish(entry, .success(try await uploadSave(entry)))
                } catch let error as SyncError {
                    try finish(entry, .failure(error))
                    await reportSave(entry, record: nil, error: error)
                }
            case .failure(let error)?:
                do {
                    try await refuse(entry, error, "the server refused record '\(entry.recordName)' of type '\(entry.recordType)'")
                } catch {
                    transient = error
                }
            case nil:
                transient = StratusError(.serverResponseLost, "the server did not answer for record '\(entry.recordName)'")
            }
        }
        logger.debug("uploaded a batch of \(records.count) records")
        if let transient { throw transient }
    }

    /// Deletes several records in one request and, on the public database, queues their DeleteQueue
    /// entries with one read of the device list (one read per deletion made deleting many records
    /// slow). A record already gone counts as deleted; a refusal is dropped and reported; a transient
    /// failure stops the drain after the others are handled.
    func deleteBatch(_ batch: [OutboxEntry]) async throws {
        let ids = batch.map { RecordID(recordName: $0.recordName, zoneID: zoneID) }
        let results = try await database.modifyRecords(saving: [], deleting: ids, atomically: false)
        var deleted: [OutboxEntry] = []
        var transient: (any Error)?
        for (entry, id) in zip(batch, ids) {
            switch results.deleteResults[id] {
            case .success?:
                deleted.append(entry)
            case .failure(let error)? where error.code == .unknownItem:
                deleted.append(entry)
            case .failure(let error)?:
                do {
                    try await refuse(entry, error, "the server refused to delete record '\(entry.recordName)'")
                } catch {
                    transient = error
                }
            case nil:
                transient = StratusError(.serverResponseLost, "the server did not answer for record '\(entry.recordName)'")
            }
        }
        // The entries stay in the outbox until the DeleteQueue entries are written (retried deletions queue the same names).
        if configuration.databaseScope == .public { try await queueDeletions(deleted) }
        try bookkeeping.commitUploads(bases: [], removingBases: deleted.map(\.recordName), removingOutbox: deleted.map(\.seq))
        for entry in deleted {
            bumpGeneration(entry.recordName)
            settle(entry, .success(nil))
        }
        logger.debug("deleted \(deleted.count) records")
        if let transient { throw transient }
    }

    /// Drops a refused entry from the outbox and reports the refusal; rethrows a transient error instead.
    private func refuse(_ entry: OutboxEntry, _ error: StratusError, _ message: String) async throws {
        try Self.rethrowIfTransient(error)
        let refusal = SyncError(.rejected, message, underlying: error)
        try finish(entry, .failure(refusal))
        await reportSave(entry, record: nil, error: refusal)
    }
}
