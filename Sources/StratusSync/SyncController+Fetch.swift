public import Foundation
import StratusClient
import StratusLogging
import StratusWire

extension SyncController {
    /// Fetches the zone's changes since the committed token (or, for a full or recovery fetch, every
    /// record), applies them to entities and hands them to the delegate.
    ///
    /// A full fetch first fetches the delta from the committed token, so deletions arrive as such
    /// and a refused token is noticed; what the full pass then misses was lost by the server and is
    /// queued again. A refused token (a recreated zone, a restored server) starts a recovery.
    func fetchChanges(scope: FetchScope) async throws -> SyncChanges {
        if configuration.databaseScope == .public { return try await fetchPublicChanges(scope: scope) }
        switch scope {
        case .delta:
            // NB: parts delivered before a refusal stay reported; the whole zone's pass adds what they lacked.
            var changes = SyncChanges()
            do {
                try await pipelinedDelta(from: try bookkeeping.changeToken, into: &changes)
            } catch let error as StratusError where error.code == .changeTokenExpired {
                guard Self.tokenMerelyExpired(error) else {
                    logger.info("the server refused the change token; recovering from the whole zone")
                    noteContradiction(error)
                    changes.append(try await fetchWholeZone(only: nil, recovery: true))
                    return changes
                }
                logger.info("the change token expired; fetching the whole zone (a synced record it no longer has was deleted)")
                changes.append(try await fetchWholeZone(only: nil, recovery: false, missing: .expired))
            }
            return changes
        case .full(let types):
            var changes = try await fetchChanges(scope: .delta)
            if try bookkeeping.recoveryPending { return changes }
            changes.append(try await fetchWholeZone(only: types, recovery: false))
            return changes
        case .recovery:
            return try await fetchWholeZone(only: nil, recovery: true)
        }
    }

    /// Fetches every record of the zone and re-applies it; records this device synced that the
    /// server does not have are queued again. A pass limited to some types keeps the token where it is.
    ///
    /// The zone's own log names what was deleted in it (the feed from no token lists its
    /// tombstones): such a record was deleted on purpose — by another device after the zone was
    /// made again, or before the restore — not lost, so its deletion is applied (and wins over an
    /// edit waiting here, decision 28) instead of the record being created again.
    ///
    /// - Parameters:
    ///   - only: The record types applied (`nil`: all, and the token moves to the feed's end).
    ///   - recovery: Whether this ends a recovery (the server lost data).
    ///   - missing: What a synced record absent from the feed means: lost (queued again), or,
    ///     after a token that merely expired, deleted.
    private func fetchWholeZone(only: Set<String>?, recovery: Bool, missing: FetchedRecords.Missing = .lost) async throws -> SyncChanges {
        let startToken = try bookkeeping.changeToken
        let feed = try await database.allRecordZoneChanges(inZoneWith: zoneID, since: nil)
        // A pass limited to some types keeps the token where it is (unset on a device that never fetched).
        var batch = PendingBatch(startToken: startToken, endToken: only == nil ? feed.changeToken : startToken, generation: generations.current)
        batch.endsRecovery = recovery
        var deletions: [(name: String, recordType: String?)] = []
        for deletion in feed.deletions where deletion.recordType.map({ only?.contains($0) ?? true }) ?? (only == nil) {
            let name = deletion.recordID.recordName
            // Only what this device knows of: the log keeps every tombstone the zone ever had.
            guard try bookkeeping.base(name) != nil || !(try bookkeeping.outboxEntries(for: name)).isEmpty else { continue }
            deletions.append((name, deletion.recordType))
        }
        let fetched = FetchedRecords(records: try feed.modifications(), deletions: deletions, full: true, only: only, missing: missing)
        var delivery = ChangeDelivery(fetched, batch: batch)
        return try await delivery.run(on: self)
    }

    /// Phrases of the Stratus server's token refusals that mean it lost what the token had seen:
    /// the zone was deleted and made again, the database restored from an earlier state, or a new
    /// server (Documentation/0002, "Tokens").
    static let lostDataRefusals = ["another zone", "earlier zone", "restored", "not valid for this", "other records of zone"]

    /// Whether a refused change token merely expired — the server compacted its change log, as
    /// CloudKit does, and still holds every record it had — rather than naming data the server lost.
    /// After an expiry a synced record the server no longer returns was deleted (a recovery would
    /// upload it again: deleted records came back); after a loss it is uploaded again. The wire
    /// code is `BAD_REQUEST` for both, so the reason tells them apart; anything the Stratus server
    /// does not name as a loss is an expiry.
    static func tokenMerelyExpired(_ error: StratusError) -> Bool {
        let reason = (error.reason ?? error.message).lowercased()
        return !lostDataRefusals.contains { reason.contains($0) }
    }

    /// Commits a batch the delegate has persisted: bases, deletions, token and date, in one transaction.
    /// A batch fetched from a token that is no longer the committed one is stale and ignored.
    ///
    /// - Returns: Whether the batch was committed (`false`: stale).
    @discardableResult
    func commit(_ batch: PendingBatch) throws -> Bool {
        var change = BookkeepingCommit(dangling: batch.dangling, arrived: batch.arrived, writeBacksDone: batch.writeBacks)
        if batch.kind == .writeBack {
            try bookkeeping.commit(change, inFlight: machine.inFlight)
            return true
        }
        guard try bookkeeping.changeToken == batch.startToken else {
            logger.debug("ignoring a stale finishSync")
            return false
        }
        change.bases = batch.bases.filter { !generations.isNewer($0.0, than: batch.generation) }
        change.removedBases = batch.removed.filter { !generations.isNewer($0, than: batch.generation) }
        change.requeue = batch.requeue
        change.droppedOutbox = batch.dropped
        change.token = batch.endToken.map { .set($0) } ?? .keep
        change.endsRecovery = batch.endsRecovery
        let now = configuration.now()
        // A part of a long fetch moves the token; the sync is complete with the last part only.
        change.date = batch.endsFeed ? now : nil
        try bookkeeping.commit(change, inFlight: machine.inFlight)
        if batch.endsFeed { machine.committed(date: now) }
        if !batch.requeue.isEmpty || !batch.dropped.isEmpty { machine.outboxChanged(pending: try bookkeeping.outboxCount()) }
        // Last, once nothing can throw: the caller reports the conflicts, then ``dropsReported(_:)``.
        machine.fetchDropped(batch.dropped)
        publish()
        return true
    }

    /// The delegate has heard of the conflicts of the entries a committed fetch dropped: the
    /// `save()` and `delete()` calls waiting for them are answered now, never before.
    func dropsReported(_ seqs: [Int64]) {
        guard !seqs.isEmpty else { return }
        for (waiter, wake) in machine.dropsReported(seqs) { waiter.resume(returning: wake) }
    }

    /// `entity.cloud.update(from:fetchReferences:)`.
    func update(_ entity: EntityRef, from record: StratusClient.Record, fetchReferences: Bool) async throws {
        try ensureOpen("entity.cloud.update(from:fetchReferences:)")
        let description = try description(of: entity.type)
        try await EntityUpdate.applyFields(of: record, to: entity, description: description, on: self)
        var update = EntityUpdate(known: [record.recordID.recordName: entity])
        try await update.applyReferences(of: record, to: entity, description: description, fetch: fetchReferences, on: self)
    }

    // MARK: Public database

    /// The public database's reads and writes.
    var publicDatabase: PublicDatabase {
        PublicDatabase(
            database: database, bookkeeping: bookkeeping, configuration: configuration, zoneID: zoneID, descriptions: descriptions, logger: logger)
    }

    /// Checks in, then fetches what changed (``PublicDatabase/read(scope:startToken:checkIn:)``) and
    /// delivers it; the DeleteQueue entries read are removed once the delegate has committed the batch.
    func fetchPublicChanges(scope: FetchScope) async throws -> SyncChanges {
        let startToken = try bookkeeping.changeToken
        let checkIn = try await publicDatabase.checkIn(hasSynced: startToken != nil, clock: clock)
        if let date = checkIn.observed {
            clock.observe(serverDate: date, now: configuration.now())
            storeSkew()
        }
        let read = try await publicDatabase.read(scope: scope, startToken: startToken, checkIn: checkIn)
        let batch = PendingBatch(startToken: startToken, endToken: read.endToken, generation: generations.current)
        var delivery = ChangeDelivery(read.fetched, batch: batch, afterCommit: read.acknowledge)
        return try await delivery.run(on: self)
    }

    // MARK: Assets

    /// Downloads the asset behind an entity's `Data` property, puts the bytes in the property and
    /// returns them. A fetch leaves an asset-backed property `nil` until this is called (or keeps
    /// the bytes the entity already holds when they are the same).
    ///
    /// ```swift
    /// import Foundation
    /// import StratusSync
    ///
    /// func image(of photo: some SyncableEntity, sync: SyncController) async throws -> Data? {
    ///     if try await sync.isAssetPending(for: photo, key: "image") {
    ///         return try await sync.downloadAsset(for: photo, key: "image")  // fetched on demand, then kept
    ///     }
    ///     return photo.value(forKey: "image") as? Data
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - entity: The entity.
    ///   - key: The local property, one of the type's ``SyncableEntity/mapping`` keys.
    /// - Returns: The bytes; the property's current value when the field is inline or already
    ///   downloaded; `nil` when the record has none or the entity never synced.
    /// - Throws: ``SyncError`` for an unknown type or key; ``StratusError`` when the download fails.
    public nonisolated func downloadAsset(for entity: any SyncableEntity, key: String) async throws -> Data? {
        try await downloadAsset(for: EntityRef(entity), key: key)
    }

    private func downloadAsset(for entity: EntityRef, key: String) async throws -> Data? {
        let (description, remote) = try assetTarget(entity, key)
        return try await assets.download(
            for: entity, key: key, description: description, remote: remote, from: database, zoneID: zoneID, logger: logger)
    }

    /// Whether an entity's property is backed by an asset it does not hold yet (``downloadAsset(for:key:)`` fetches it).
    ///
    /// - Parameters:
    ///   - entity: The entity.
    ///   - key: The local property.
    /// - Returns: `true` when the bytes wait on the server.
    /// - Throws: ``SyncError`` for an unknown type or key.
    public nonisolated func isAssetPending(for entity: any SyncableEntity, key: String) async throws -> Bool {
        try await isAssetPending(for: EntityRef(entity), key: key)
    }

    private func isAssetPending(for entity: EntityRef, key: String) async throws -> Bool {
        let (description, remote) = try assetTarget(entity, key)
        guard let name = try await entity.access({ description.syncID(of: $0) }) else { return false }
        return try assets.isPending(recordName: name, remote: remote, fields: bookkeeping.base(name)?.record.fields)
    }

    private func assetTarget(_ entity: EntityRef, _ key: String) throws -> (EntityDescription, String) {
        let description = try description(of: entity.type)
        guard let remote = description.mapping[key] else {
            throw SyncError(.unknownKey, "'\(key)' is not a mapped property of entity type '\(description.type)'; add it to its mapping")
        }
        return (description, remote)
    }
}
