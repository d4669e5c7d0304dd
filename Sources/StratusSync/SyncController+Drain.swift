import Foundation
import StratusClient
import StratusLogging
import StratusWire

extension SyncController {
    // MARK: The drain

    /// Joins the drain (starting one unless one runs) as a sync, which fetches next.
    func drain() async -> DrainWake {
        await drain(joining: machine.registerDrainWaiter(.sync))
    }

    /// Starts a drain unless one runs, and waits for it as the registered caller `id`. The drain
    /// uploads the outbox in order until it is empty; before it ends, the values conflict
    /// resolutions produced reach the local store (``deliverWriteBacks()``).
    ///
    /// - Returns: How the caller was woken: the drain's end (with the caller's entry's outcome), or
    ///   its task's cancellation.
    func drain(joining id: DrainWaitID) async -> DrainWake {
        if machine.requestDrain() == .start {
            tasks.drain = Task { await self.runDrain() }
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if case .resume(let waiter, let wake) = machine.parkDrainWaiter(id, with: continuation) { waiter.resume(returning: wake) }
            }
        } onCancel: {
            Task { await self.cancelDrainWait(id) }
        }
    }

    private func cancelDrainWait(_ id: DrainWaitID) {
        machine.cancelDrainWaiter(id)?.resume(returning: .cancelled)
    }

    /// The drain's task: uploads unless paused meanwhile, then wakes its callers and starts the
    /// follow-up sync the state machine asks for.
    private func runDrain() async {
        let end: Session.DrainEnd
        if machine.drainStarted() == .run {
            publish()
            let failure = await drainAndWriteBack()
            storeSkew()
            end = machine.drainFinished(failure: failure, pending: (try? bookkeeping.outboxCount()) ?? machine.status.pendingCount)
            publish()
        } else {
            end = machine.drainSkipped()
        }
        tasks.drain = nil
        for (waiter, wake) in end.resume { waiter.resume(returning: wake) }
        if end.startFollowUp { startFollowUp() }
    }

    /// Uploads the outbox, then hands resolved values to the store; returns what stopped it (a
    /// record gone from the server stops it without a failure: a fetch comes next).
    private func drainAndWriteBack() async -> (any Error)? {
        var failure: (any Error)?
        do {
            try await drainOutbox()
        } catch let gone as RecordGoneFromServer {
            logger.info("\(gone)")  // the sync that ran the drain fetches next; after a save, a follow-up sync does
        } catch {
            uploadFailed(error)
            failure = error
        }
        do {
            try await deliverWriteBacks()
        } catch {
            logger.error("could not hand resolved values to the store; they go with the next drain: \(error)")
            failure = failure ?? error
        }
        return failure
    }

    /// An upload failed and the rest stays queued: an unanswered one is recorded (the next sync
    /// fetches first), and the reconnection retry starts unless the drain was cancelled.
    private func uploadFailed(_ error: any Error) {
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
    }

    /// Whether a failed upload may have reached the server: the connection broke or timed out after
    /// the request could have gone out, or the task was cancelled meanwhile. An answer (an error
    /// code from the server) or no network at all means it was not applied.
    static func mayHaveBeenApplied(_ error: any Error) -> Bool {
        if error is SyncError || error is RecordGoneFromServer { return false }
        guard let error = error as? StratusError else { return true }
        return error.code == .networkFailure || error.code == .serverResponseLost
    }

    /// Uploads the head of the outbox, request by request, until it is empty or sync pauses:
    /// consecutive saves through the one upload path (``SaveUpload``), consecutive deletions in one
    /// request each.
    private func drainOutbox() async throws {
        while machine.mayUploadNext {
            let batch = OutboxEntry.batch(atHeadOf: try bookkeeping.outboxEntries(limit: Database.maximumOperationsPerRequest))
            guard let last = batch.last else { break }
            machine.uploadStarted(through: last.seq)
            defer { machine.uploadEnded() }
            if last.kind == .delete {
                try await deleteBatch(batch)
            } else {
                var upload = SaveUpload(batch)
                try await unanswered(batch) { try await upload.run(on: self) }
            }
        }
    }

    /// Runs an upload of `entries`; when it fails without an answer, each new record among them
    /// keeps what was sent as its base, without a change tag: if the create was applied, the retry
    /// meets it as a conflict, and the three-way merge needs that version as the base — without
    /// one, every field looked changed on both sides and a later edit made here lost to another
    /// device's edit of another field (the sync simulator, seed 280).
    private func unanswered(_ entries: [OutboxEntry], _ upload: () async throws -> Void) async throws {
        do {
            try await upload()
        } catch  where Self.mayHaveBeenApplied(error) {
            for entry in entries where entry.kind == .save {
                guard try bookkeeping.base(entry.recordName) == nil else { continue }
                try bookkeeping.setBase(entry.recordName, BaseRecord(saved: try entry.outgoingRecord(base: nil, zoneID: zoneID)))
            }
            throw error
        }
    }

    /// Deletes several records in one request and, on the public database, queues their DeleteQueue
    /// entries with one read of the device list (one read per deletion made deleting many records
    /// slow). A record already gone counts as deleted; a refusal is dropped and reported; a transient
    /// failure stops the drain after the others are handled.
    private func deleteBatch(_ batch: [OutboxEntry]) async throws {
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
            case .failure(let error)? where error.isTransient:
                transient = error
            case .failure(let error)?:
                let refusal = SyncError(.rejected, "the server refused to delete record '\(entry.recordName)'", underlying: error)
                try finish(entry, .refused(refusal))
                await reportSave(entry, record: nil, error: refusal)
            case nil:
                transient = StratusError(.serverResponseLost, "the server did not answer for record '\(entry.recordName)'")
            }
        }
        // The entries stay in the outbox until the DeleteQueue entries are written (retried deletions queue the same names).
        if configuration.databaseScope == .public { try await publicDatabase.queueDeletions(deleted) }
        try bookkeeping.commitUploads(bases: [], removingBases: deleted.map(\.recordName), removingOutbox: deleted.map(\.seq))
        for entry in deleted {
            generations.bump(entry.recordName)
            settle(entry, .saved(nil))
        }
        logger.debug("deleted \(deleted.count) records")
        if let transient { throw transient }
    }

    // MARK: Settling entries

    /// Records what became of an entry and removes it from the outbox.
    func finish(_ entry: OutboxEntry, _ outcome: EntryOutcome) throws {
        try bookkeeping.removeOutboxEntry(entry.seq)
        settle(entry, outcome)
    }

    /// Records what became of an entry already removed from the outbox, for the callers waiting for it.
    func settle(_ entry: OutboxEntry, _ outcome: EntryOutcome) {
        liveEntities[entry.recordName] = nil
        machine.entrySettled(entry.seq, outcome)
        publish()
    }

    /// What follows writing a saved record's last-synced version (and the entry's removal) to the
    /// bookkeeping (``settleUploads(_:measuresSkew:)`` for one record).
    func settleUpload(_ entry: OutboxEntry, _ saved: StratusClient.Record, measuresSkew: Bool) async throws {
        try await settleUploads([(entry, saved)], measuresSkew: measuresSkew)
    }

    /// What follows writing the last-synced versions of saved records (and their entries' removal)
    /// to the bookkeeping, for each: the clock skew — measured on a record this device has just
    /// written (`measuresSkew`), whose date is the server's "now", not on the server's version that
    /// stood after a conflict —, the held assets, the generation, the sync ID and date into the
    /// entity; then the delegate hears of them all, in order, in one call off the actor (it was two
    /// executor hops per record); then the callers waiting for the entries — after the delegate, as
    /// decision 41 promises.
    func settleUploads(_ saved: [(entry: OutboxEntry, record: StratusClient.Record)], measuresSkew: Bool) async throws {
        var reports: [SaveReport] = []
        reports.reserveCapacity(saved.count)
        for (entry, record) in saved {
            if measuresSkew, let date = record.modificationDate { clock.observe(serverDate: date, now: configuration.now()) }
            try assets.noteSaved(record)
            generations.bump(record.recordID.recordName)
            guard let description = descriptions[entry.recordType] else { continue }
            let entity = await entity(for: entry.recordName, description: description)
            if let entity, let written = descriptions[record.recordType] { await writeBack(record, into: entity, description: written) }
            reports.append(SaveReport(entity: entity, record: record, error: nil))
        }
        await delegateDidSave(reports)
        for (entry, record) in saved { settle(entry, .saved(record)) }
    }

    /// Writes the server's sync ID and modification date of a saved record into the local entity
    /// (its other values reach the store through ``deliverWriteBacks()`` when a conflict changed them).
    /// The date is converted to this device's clock (the server's minus the observed skew), so the
    /// change date an app compares with its own edits is on one clock.
    private func writeBack(_ saved: StratusClient.Record, into entity: EntityRef, description: EntityDescription) async {
        let name = saved.recordID.recordName
        let date = clock.deviceTime(saved.modificationDate)
        do {
            try await entity.access { entity in
                entity.setValue(name, forKey: description.syncIdKey)
                entity.setValue(date, forKey: description.changeDateKey)
            }
        } catch {
            logger.info("could not write the sync ID and date of record '\(name)' into its entity: \(error)")
        }
    }

    /// Tells the delegate what became of a save.
    func reportSave(_ entry: OutboxEntry, record: StratusClient.Record?, error: (any Error)?) async {
        guard let description = descriptions[entry.recordType] else { return }
        await delegateDidSave([SaveReport(entity: await entity(for: entry.recordName, description: description), record: record, error: error)])
    }

    /// The entity given to `save()` for a record, else the delegate's.
    private func entity(for recordName: String, description: EntityDescription) async -> EntityRef? {
        if let live = liveEntities[recordName] { return live }
        return try? await delegateEntity(ofType: description.type, syncID: recordName)
    }

    /// Hands the delegate the records whose resolved version (after a conflict) the local store has
    /// not received yet, as updates with a ``FinishSync`` that clears their markers — the same path as
    /// fetched changes, so they are persisted before the drain (and `sync()`) returns. Markers are
    /// durable: a process that ends first delivers them at its next drain. A record with a newer edit
    /// waiting waits too (its upload makes a newer version, delivered then), so the edit is not
    /// overwritten in the store.
    private func deliverWriteBacks() async throws {
        let names = try bookkeeping.writeBackNames()
        guard !names.isEmpty else { return }
        let bases = try bookkeeping.bases(names)
        var records: [StratusClient.Record] = []
        var batch = PendingBatch(kind: .writeBack, generation: generations.current)
        for name in names {
            guard let base = bases[name] else {
                batch.writeBacks.append(name)  // the record was deleted since: nothing to write
                continue
            }
            guard try !bookkeeping.hasPendingChanges(for: name) else { continue }
            records.append(try StratusClient.Record(wire: base.record, zoneID: zoneID))
        }
        var delivery = ChangeDelivery(FetchedRecords(records: records, deletions: [], full: true), batch: batch)
        _ = try await delivery.run(on: self)
    }
}
