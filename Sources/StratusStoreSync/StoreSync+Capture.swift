import Foundation
import StratusClient
import StratusLogging
import StratusStore
import StratusSync

extension StoreSync {
    /// One capture: history → sync IDs for new objects → outbox → values sync wrote → token.
    func capturePass() async throws -> Int {
        guard historyToken != nil else { return try await adopt() }
        let transactions: [HistoryTransaction]
        do {
            transactions = try await store.history(after: historyToken)
        } catch let error as StoreError where error.code == .historyExpired {
            // Transactions were pruned before sync saw them: compare everything instead.
            logger.info("persistent history was pruned past the last capture; running a full sync")
            return try await adopt()
        }
        guard let last = transactions.last?.token else { return 0 }
        let collector = collect(transactions)
        let saves = collector.wantedSaves
        guard !saves.isEmpty || !collector.deletions.isEmpty else {
            try writeToken(last)
            return 0
        }
        bridge.forgetObjects()
        let wanted = saves.filter { !bridge.isPlaceholder($0.0) }  // a placeholder is never uploaded
        try await assignSyncIDs(wanted.map(\.0))
        var uploads: [SyncUpload] = []
        var changesOnly: [SyncUpload] = []
        let objects = wanted.map { (bridge.object(for: $0.0), $0.1, collector.editTimes[$0.0]) }
        bridge.preload(objects.compactMap(\.0))
        for (object, keys, editedAt) in objects {
            guard let object, object.exists, let id = object.objectID else { continue }
            // Dated when the edit was saved (its history transaction), not now: an edit made before
            // sync ran (another launch, offline for long) must not look like the latest change.
            // Saved through `.cloud` already: only what that did not send.
            if explicitSaves.remove(id) != nil {
                changesOnly.append(.save(object, keys: keys, editedAt: editedAt))
            } else {
                uploads.append(.save(object, keys: keys, editedAt: editedAt))
            }
        }
        for id in collector.deletions {
            guard let syncID = bridge.syncID(of: id), let info = bridge.infos[id.entityName] else { continue }
            bridge.unindex(id)
            if explicitDeletes.remove(syncID) != nil { continue }  // deleted through `.cloud` already
            let gone = info.mapping.objectType.init(bridge: bridge, objectID: nil)
            gone.setValue(syncID, forKey: bridge.syncIdKey(id.entityName))
            uploads.append(.delete(gone))
        }
        if !changesOnly.isEmpty { capturedChanges += try await controller.upload(changesOnly, onlyChanges: true) }
        let queued = try await controller.upload(uploads)
        capturedChanges += queued
        logger.debug("captured \(queued) local changes up to \(last)")
        try await writeBack()
        bridge.forgetObjects()  // the snapshots of a large capture are not kept until the next one
        try writeToken(last)
        return queued
    }

    /// The local changes in `transactions`. Sync's own writes are not uploaded, except the deletions
    /// the store's delete rules cascaded from a remote deletion: the server still has those records.
    private func collect(_ transactions: [HistoryTransaction]) -> ChangeCollector {
        var collector = ChangeCollector(syncedKeys: bridge.infos.mapValues { $0.mapping.syncedKeys })
        let remote = delegate.appliedRemoteDeletions
        var seenRemote: [ObjectID] = []
        for transaction in transactions {
            guard transaction.author == Self.transactionAuthor else {
                collector.add(transaction.changes, at: transaction.timestamp)
                continue
            }
            let deletions = transaction.changes.filter { $0.kind == .deleted }
            seenRemote += deletions.map(\.objectID).filter(remote.contains)
            collector.add(deletions.filter { !remote.contains($0.objectID) }, at: transaction.timestamp)
        }
        delegate.forgetRemoteDeletions(seenRemote)
        return collector
    }

    /// The first capture on this device (or one after the history was pruned past the token): every
    /// synced object the server never received is queued — data from before sync was adopted, whose
    /// history may be long gone — then the zone is fetched. The token is taken first, so a change
    /// made meanwhile is captured again by the next pass rather than missed.
    func adopt() async throws -> Int {
        let last = try await store.lastHistoryToken() ?? HistoryToken(rawValue: 0)
        bridge.forgetObjects()
        try await assignSyncIDs(try await bridge.allObjectIDs())
        do {
            try await controller.syncEntities()
        } catch let error where error is StratusError || error is URLError {
            logger.info("cannot reach the server; the objects stay queued: \(error)")
        }
        try await writeBack()
        bridge.forgetObjects()
        try writeToken(last)
        return 0
    }

    /// Gives new objects (and the synced objects they point to) their record names before anything
    /// is queued, so a crash between queueing and writing back cannot make a second record.
    func assignSyncIDs(_ ids: [ObjectID]) async throws {
        // One assignment at a time (a capture and a `.cloud` save may both meet a new object): the
        // next reads what the previous saved, so an object never gets two record names.
        let previous = assignment
        let task = Task {
            _ = await previous?.result
            try await self.assignMissingSyncIDs(ids)
        }
        assignment = task
        try await task.value
    }

    private func assignMissingSyncIDs(_ ids: [ObjectID]) async throws {
        let bridge = bridge
        let missing = ids.filter { bridge.syncID(of: $0) == nil }
        guard !missing.isEmpty else { return }
        let context = bridge.writingContext()
        let assigned = try await context.perform { context -> [(ObjectID, String)] in
            var assigned: [(ObjectID, String)] = []
            var pending = missing
            var seen = Set(missing)
            while let id = pending.popLast() {
                guard let info = bridge.infos[id.entityName], !bridge.isPlaceholder(id), let object = try? context.existingObject(with: id)
                else { continue }
                let syncIdKey = bridge.syncIdKey(id.entityName)
                if case .string(let known)? = object.attributeValue(forKey: syncIdKey) {
                    assigned.append((id, known))
                } else {
                    let name = LiveIdentifiers.newRecordName()
                    object.setValue(name, forKey: syncIdKey)
                    assigned.append((id, name))
                }
                for key in info.mapping.toOne.keys.sorted() + info.mapping.toMany.keys.sorted() {
                    for target in object.objectIDs(forKey: key) where bridge.syncID(of: target) == nil && !seen.contains(target) {
                        seen.insert(target)
                        pending.append(target)
                    }
                }
            }
            try context.saveToStore()
            return assigned
        }
        for (id, name) in assigned { bridge.indexSyncID(name, for: id) }
    }

    /// Writes back what the uploads set on the captured objects — sync IDs and server dates, nothing
    /// else — with the uploads still waiting for the delayed write-back, in one save.
    ///
    /// The objects are shared with deliveries (a fetch, the write-back of resolved conflicts), which
    /// set the record's values on them before their own save; taking every dirty value here took
    /// theirs too, and a reference to an object the delivery had not inserted yet was written as
    /// none (Documentation/0009, decision 40). Resolved values reach the store through deliveries.
    func writeBack() async throws {
        try await bridge.writeBack(bridge.knownObjects() + delegate.takeUploaded())
    }
}
