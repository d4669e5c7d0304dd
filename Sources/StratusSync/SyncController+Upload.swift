import Foundation
import StratusClient
import StratusLogging
import StratusWire

extension SyncController {
    // MARK: Enqueue

    /// Queues `entity` (and the entities it references) and uploads unless paused.
    func save(_ entity: EntityRef, keys: Set<String>?, onlyChanges: Bool = false) async throws -> StratusClient.Record? {
        try await refuseIfIgnored(entity)
        var visited: Set<ObjectIdentifier> = []
        var entries: [OutboxEntry] = []
        try await collectSave(entity, keys: keys, owner: nil, onlyChanges: onlyChanges, visited: &visited, into: &entries)
        guard !entries.isEmpty else { return nil }
        // With onlyChanges the entity itself may have had nothing to send (only what it references).
        let own = try await entries.last?.recordName == syncID(of: entity)
        let seq = try bookkeeping.enqueue(entries, coalescingAfter: inFlightSeq).last ?? 0
        machine.outboxChanged(pending: try bookkeeping.outboxCount())
        publish()
        guard !machine.status.isPaused, await zoneIsReady() else { return nil }
        await drainAfterQueueing()
        switch outcomes[seq] {
        case .success(let record)?: return own ? record : nil
        case .failure(let error)?: throw error
        case nil: return nil
        }
    }

    /// Queues the deletion of `entity`'s record and uploads unless paused.
    func delete(_ entity: EntityRef) async throws {
        try await refuseIfIgnored(entity)
        guard let entry = try await deletionEntry(entity) else { return }
        let seq = try bookkeeping.enqueue(entry, coalescingAfter: inFlightSeq)
        machine.outboxChanged(pending: try bookkeeping.outboxCount())
        publish()
        guard !machine.status.isPaused, await zoneIsReady() else { return }
        await drainAfterQueueing()
        if case .failure(let error)? = outcomes[seq] { throw error }
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
            scheduleReconnect()
            return false
        }
    }

    /// What a confinement block needs to read an entity.
    var snapshotContext: SnapshotContext {
        SnapshotContext(zoneID: zoneID, descriptions: descriptions, placeholders: Set(placeholders.keys), delegate: delegate)
    }

    /// The outbox entries saving `entity` needs, appended to `entries`: referenced entities first
    /// (parent before child, unless `followReferences` is off), `entity` last.
    ///
    /// - Parameters:
    ///   - editedAt: When the edit was made, on the server's timeline; now by default.
    ///   - recheck: A forced sync's recheck rather than an edit: fields equal to the last-synced
    ///     version are left out, and the entry is dated with that version's modification date, so a
    ///     value this device merely still holds never overrides a newer edit made elsewhere.
    ///   - onlyChanges: Leave out fields equal to the latest version this device has queued or
    ///     synced, and queue nothing when none is left (a change reported twice is uploaded once).
    func collectSave(
        _ entity: EntityRef, keys: Set<String>?, owner: String?, editedAt: Date? = nil, recheck: Bool = false, onlyChanges: Bool = false,
        followReferences: Bool = true, visited: inout Set<ObjectIdentifier>, into entries: inout [OutboxEntry]
    ) async throws {
        let description = try description(of: entity.type)
        visited.insert(entity.identity)
        let context = snapshotContext
        var snapshot = try await entity.access { try EntitySnapshot.read($0, keys: keys, description: description, context: context) }
        let name = snapshot.name
        if let owner {
            snapshot.fields[Self.ownerField] = .reference(Reference(RecordID(recordName: owner, zoneID: zoneID), action: .deleteSelf))
        }
        if configuration.ignoreKeys.contains(name) { return }  // referenced, not uploaded: sync leaves it alone
        for (target, owned) in snapshot.targets where followReferences && !visited.contains(target.identity) {
            try await collectSave(
                target, keys: nil, owner: owned ? name : nil, recheck: recheck, onlyChanges: onlyChanges, visited: &visited, into: &entries)
        }
        var date = editedAt ?? editTime()
        if recheck, let base = try bookkeeping.base(name), base.record.recordChangeTag != nil {
            let held = base.record.fields ?? [:]
            snapshot.fields = snapshot.fields.filter { held[$0.key] != $0.value }
            snapshot.cleared = snapshot.cleared.filter { held[$0] != nil }
            date = base.modificationDate ?? date
        }
        if onlyChanges {
            let latest = try latestFields(name)
            snapshot.fields = snapshot.fields.filter { latest?[$0.key] != $0.value }
            snapshot.cleared = snapshot.cleared.filter { latest?[$0] != nil }
            guard latest == nil || !snapshot.fields.isEmpty || !snapshot.cleared.isEmpty else { return }
        }
        liveEntities[name] = entity
        entries.append(
            OutboxEntry(
                seq: 0, kind: .save, recordType: description.recordType, recordName: name, fields: snapshot.fields, cleared: snapshot.cleared,
                editedAt: date))
    }

    /// The fields of the latest version of a record this device knows: the last-synced version with
    /// the changes waiting in the outbox on top; `nil` when it has neither (never saved).
    func latestFields(_ name: String) throws -> [String: FieldValue]? {
        let base = try bookkeeping.base(name)
        let pending = try bookkeeping.outboxEntries(for: name)
        guard base != nil || !pending.isEmpty else { return nil }
        var fields = base?.record.fields ?? [:]
        for entry in pending {
            guard entry.kind == .save else { return nil }  // a deletion waits: whatever comes next is new
            for (key, value) in entry.fields { fields[key] = value }
            for key in entry.cleared { fields[key] = nil }
        }
        return fields
    }
}
