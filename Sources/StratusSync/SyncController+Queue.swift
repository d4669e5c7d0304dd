public import Foundation
import StratusClient
import StratusLogging

/// One change handed to ``SyncController/upload(_:)``.
///
/// It carries the entity itself, which need not be `Sendable`: the controller reads it only in its
/// ``SyncFieldAccess/syncConfinement``.
// Safety: the entities are touched only in their confinement (see `EntityRef`).
public enum SyncUpload: @unchecked Sendable {
    /// Save the entity: every mapped field (`keys == nil`) or only those local properties.
    /// `editedAt` is when the edit was saved, by the device clock (now when `nil`): a store that
    /// reports its changes later (from its persistent history) passes the time each was made, so
    /// "later change wins" compares edit times rather than capture times.
    case save(any SyncableEntity, keys: Set<String>?, editedAt: Date? = nil)
    /// Delete the entity's record.
    case delete(any SyncableEntity)
}

extension SyncController {
    // MARK: Queueing

    /// Queues many changes durably, in order, then uploads them in one drain (consecutive saves go
    /// in batches of up to 200), where `entity.cloud.save()` would drain after each one.
    ///
    /// Meant for a local store that reports its changes in bulk (``SyncDelegate`` implementations
    /// such as `StratusStoreSync`). Outcomes reach the delegate's `didSave`; a record the server
    /// refuses does not stop the others. Paused or offline, the changes stay queued.
    ///
    /// ```swift
    /// import Foundation
    /// import StratusSync
    ///
    /// func report(_ sync: SyncController, edited note: some SyncableEntity, at savedAt: Date, removed old: some SyncableEntity) async throws {
    ///     try await sync.upload([.save(note, keys: ["title"], editedAt: savedAt), .delete(old)])
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - changes: The saves and deletions, oldest first.
    ///   - onlyChanges: Leave out of each save the fields equal to the latest version this device has
    ///     queued or synced, and skip a save left with none: a change reported twice (by the store's
    ///     history and by an `entity.cloud.save()`) is uploaded once.
    /// - Returns: How many changes were queued (deletions of entities without a sync ID are skipped).
    /// - Throws: ``SyncError`` for an entity of an unknown type; an SQLite error when the outbox cannot be written.
    @discardableResult
    public func upload(_ changes: [SyncUpload], onlyChanges: Bool = false) async throws -> Int {
        try ensureOpen("upload(_:)")
        var collector = OutboxCollector()
        var queued = 0
        for change in changes {
            switch change {
            case .save(let entity, let keys, let editedAt):
                let entity = EntityRef(entity)
                // A referenced entity queued earlier in this call is not queued again.
                collector.revisit(entity)
                let before = collector.entries.count
                let options = OutboxCollector.Options(keys: keys, editedAt: editedAt.map { editTime($0) }, onlyChanges: onlyChanges)
                try await collector.save(entity, options, on: self)
                if collector.entries.count > before { queued += 1 }
            case .delete(let entity):
                guard let entry = try await deletionEntry(EntityRef(entity)) else { continue }
                collector.entries.append(entry)
                queued += 1
            }
        }
        // One outbox transaction for the whole call (one per entry made queueing 9,000 notes slow).
        _ = try enqueue(collector.entries)
        guard queued > 0 else { return queued }
        do {
            _ = try await waitForUpload(.change(seq: nil))
        } catch is CancellationError {
            // Cancelled while it waits, the call still returns what it queued: the drain goes on.
        }
        return queued
    }

    /// Queues `entity` (and the entities it references) and uploads unless paused.
    ///
    /// - Returns: The record as saved; `nil` when the change stays queued (paused, offline, or the
    ///   drain stopped before it) or the entity itself had nothing to send.
    /// - Throws: ``SyncError`` for a refusal; `CancellationError` when the caller's task is cancelled
    ///   while it waits (the change stays queued and is uploaded).
    func save(_ entity: EntityRef, keys: Set<String>?, onlyChanges: Bool = false) async throws -> StratusClient.Record? {
        try ensureOpen("entity.cloud.save()")
        try await refuseIfIgnored(entity)
        var collector = OutboxCollector()
        try await collector.save(entity, OutboxCollector.Options(keys: keys, onlyChanges: onlyChanges), on: self)
        guard let last = collector.entries.last else { return nil }
        // With onlyChanges the entity itself may have had nothing to send (only what it references).
        let own = try await last.recordName == syncID(of: entity)
        let seq = try enqueue(collector.entries).last ?? 0
        switch try await waitForUpload(.change(seq: seq)) {
        case .saved(let record)?: return own ? record : nil
        case .refused(let error)?: throw error
        case nil: return nil
        }
    }

    /// Queues the deletion of `entity`'s record and uploads unless paused.
    func delete(_ entity: EntityRef) async throws {
        try ensureOpen("entity.cloud.delete()")
        try await refuseIfIgnored(entity)
        guard let entry = try await deletionEntry(entity) else { return }
        let seq = try enqueue([entry]).last ?? 0
        if case .refused(let error)? = try await waitForUpload(.change(seq: seq)) { throw error }
    }

    /// Queues entries in one outbox transaction, each folded into a waiting save of its record
    /// unless that one is in flight; returns their sequence numbers.
    func enqueue(_ entries: [OutboxEntry]) throws -> [Int64] {
        let sequences = try bookkeeping.enqueue(entries, coalescingAfter: machine.inFlight)
        machine.outboxChanged(pending: try bookkeeping.outboxCount())
        publish()
        return sequences
    }

    /// Uploads what was just queued and waits for the drain that does it. The caller registers
    /// before anything can suspend, so the outcome of its entry is kept for it even when a drain
    /// already running uploads the entry meanwhile.
    ///
    /// - Returns: The outcome of the entry the caller waits for; `nil` when it stays queued (paused,
    ///   offline, or the drain stopped before it) or the caller waits for none.
    /// - Throws: `CancellationError` when the caller's task is cancelled while it waits.
    private func waitForUpload(_ purpose: DrainPurpose) async throws -> EntryOutcome? {
        let id = machine.registerDrainWaiter(purpose)
        guard !machine.status.isPaused, await zoneIsReady() else { return machine.withdrawDrainWaiter(id) }
        // After an upload that got no answer the next one waits for a sync instead: that upload may
        // have been applied, and another device may have deleted its record since; sent again
        // blindly, a create would bring the deleted record back (the sync simulator found it). The
        // sync fetches first, so such a deletion wins (decision 28) before anything is sent.
        if (try? bookkeeping.uploadUncertain) == true {
            scheduleFollowUpSync()
            return machine.withdrawDrainWaiter(id)
        }
        switch await drain(joining: id) {
        case .drained(let outcome, _): return outcome
        case .cancelled: throw CancellationError()
        }
    }

    /// The outbox entry deleting `entity`'s record; `nil` when it has no record name (never saved).
    func deletionEntry(_ entity: EntityRef) async throws -> OutboxEntry? {
        let description = try description(of: entity.type)
        guard let syncID = try await syncID(of: entity), !configuration.ignoreKeys.contains(syncID) else { return nil }
        return OutboxEntry(
            seq: 0, kind: .delete, recordType: description.recordType, recordName: syncID, fields: [:], cleared: [], editedAt: editTime())
    }

    /// Throws ``SyncError/Code/ignoredEntity`` when the entity's sync ID is in ``SyncConfiguration/ignoreKeys``.
    func refuseIfIgnored(_ entity: EntityRef) async throws {
        guard !configuration.ignoreKeys.isEmpty, let name = try await syncID(of: entity), configuration.ignoreKeys.contains(name) else { return }
        throw SyncError(
            .ignoredEntity, "'\(name)' (\(entity.type)) is in SyncConfiguration.ignoreKeys, which sync leaves alone; remove it there to sync it")
    }

    /// An entity's sync ID, read in its confinement.
    func syncID(of entity: EntityRef) async throws -> String? {
        let description = try description(of: entity.type)
        return try await entity.access { description.syncID(of: $0) }
    }

    /// Whether the zone exists (creating it if needed); offline, the change stays queued and a retry is scheduled.
    func zoneIsReady() async -> Bool {
        do {
            try await ensureZone()
            return true
        } catch {
            logger.info("cannot reach the server, changes stay queued: \(error)")
            noteContradiction(error)
            machine.failed("\(error)")  // the status says why the change waits
            publish()
            scheduleReconnect()
            return false
        }
    }

    // MARK: Full sync

    /// Full sync: queues every local entity the server has never received (no sync ID or no
    /// last-synced version, such as data that existed before sync was adopted) and every entity whose
    /// change date (``SyncableEntity/changeDateKey``) is later than the last successful sync — both
    /// dates on this device's clock, so an edit the app saved without `cloud.save()` still goes up —,
    /// uploads, then fetches. An entity that changed only in the fields the server already has is not
    /// sent again.
    ///
    /// Forced, it rechecks everything instead of trusting the token and the dates: it queues every
    /// entity — only the fields that differ from the last-synced version, dated with that version's
    /// modification date, so a value the device merely still holds never overwrites a newer edit
    /// made elsewhere (the upload meets it as a conflict and the policy decides) —, fetches the
    /// changes since the token (deletions arrive as such), then every record of the zone and
    /// re-applies it. A record this device synced that the server does not have any more, although
    /// no deletion said so, was lost by the server and is queued again (Documentation/0009,
    /// decisions 9 and 26). Entities whose sync ID is in ``SyncConfiguration/ignoreKeys`` are skipped.
    ///
    /// - Parameters:
    ///   - types: The entity types to check; `nil` checks all. The fetch still covers every type,
    ///     except that a forced fetch re-applies only these.
    ///   - forced: Recheck everything.
    /// - Returns: The changes delivered to the delegate.
    /// - Throws: ``SyncError`` for an unknown type; ``StratusError`` when the server cannot be reached.
    @discardableResult
    public func syncEntities(specific types: [any SyncableEntity.Type]? = nil, forced: Bool = false) async throws -> SyncChanges {
        try ensureOpen("syncEntities()")
        guard !machine.status.isPaused else { return SyncChanges() }
        var chosen: [EntityDescription] = []
        for type in types ?? configuration.entityTypes {
            chosen.append(try description(of: type))
        }
        var collector = OutboxCollector()
        var queued = 0
        let lastSync = machine.status.lastSyncDate
        for description in chosen {
            for entity in try await delegateAllEntities(ofType: description.type) where !collector.contains(entity) {
                let before = collector.entries.count
                try await collectForFullSync(entity, description: description, forced: forced, lastSync: lastSync, into: &collector)
                if collector.entries.count > before { queued += 1 }
            }
        }
        _ = try enqueue(collector.entries)
        logger.debug("full sync queued \(queued) entities (forced: \(forced))")
        let limited: Set<String>? = types == nil ? nil : Set(chosen.map(\.recordType))
        let scope: FetchScope = forced ? .full(recordTypes: limited) : .delta
        return try await sync(scope: scope)
    }

    /// Collects what a full sync queues for one entity: forced, its recheck; else the entity if the
    /// server never received it, or the fields that changed since the last sync by its change date.
    private func collectForFullSync(
        _ entity: EntityRef, description: EntityDescription, forced: Bool, lastSync: Date?, into collector: inout OutboxCollector
    ) async throws {
        let (syncID, changed) = try await entity.access { (description.syncID(of: $0), description.changeDate(of: $0)) }
        if let syncID, configuration.ignoreKeys.contains(syncID) { return }
        let known = try syncID.map { try bookkeeping.base($0) != nil } ?? false
        if forced {
            try await collector.save(entity, OutboxCollector.Options(recheck: true), on: self)
        } else if !known {
            try await collector.save(entity, on: self)
        } else if let changed, changed > lastSync ?? .distantPast {
            // Changed since the last sync by this device's clock, perhaps without cloud.save().
            try await collector.save(entity, OutboxCollector.Options(editedAt: editTime(changed), onlyChanges: true), on: self)
        }
    }
}
