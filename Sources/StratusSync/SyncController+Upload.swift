import Foundation
import StratusClient
import StratusLogging
import StratusWire

extension SyncController {
    // MARK: Enqueue

    /// Queues `entity` (and the entities it references) and uploads unless paused.
    func save(_ entity: any SyncableEntity, keys: Set<String>?) async throws -> StratusClient.Record? {
        var visited: Set<ObjectIdentifier> = []
        let seq = try enqueueSave(entity, keys: keys, visited: &visited)
        machine.outboxChanged(pending: try bookkeeping.outboxCount())
        publish()
        guard !machine.status.isPaused, await zoneIsReady() else { return nil }
        await drainAfterQueueing()
        switch outcomes[seq] {
        case .success(let record)?: return record
        case .failure(let error)?: throw error
        case nil: return nil
        }
    }

    /// Queues the deletion of `entity`'s record and uploads unless paused.
    func delete(_ entity: any SyncableEntity) async throws {
        guard let entry = try deletionEntry(entity) else { return }
        let seq = try bookkeeping.enqueue(entry, coalescingAfter: inFlightSeq)
        machine.outboxChanged(pending: try bookkeeping.outboxCount())
        publish()
        guard !machine.status.isPaused, await zoneIsReady() else { return }
        await drainAfterQueueing()
        if case .failure(let error)? = outcomes[seq] { throw error }
    }

    /// The outbox entry deleting `entity`'s record; `nil` when it has no record name (never saved).
    func deletionEntry(_ entity: any SyncableEntity) throws(SyncError) -> OutboxEntry? {
        let description = try description(of: type(of: entity))
        guard let syncID = description.syncID(of: entity) else { return nil }
        return OutboxEntry(
            seq: 0, kind: .delete, recordType: description.recordType, recordName: syncID, fields: [:], cleared: [], editedAt: editTime())
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

    /// The entity's record name, assigned (and written into the entity) when it has none.
    func ensureSyncID(_ entity: any SyncableEntity) throws(SyncError) -> String {
        let description = try description(of: type(of: entity))
        if let id = description.syncID(of: entity) { return id }
        let id = UUID().uuidString
        entity.setValue(id, forKey: description.syncIdKey)
        return id
    }

    /// Whether `entity` stands in for an empty reference (never uploaded).
    func isPlaceholder(_ entity: any SyncableEntity) -> Bool {
        placeholders[ObjectIdentifier(entity)] != nil || entity === type(of: entity).referencePlaceholder
    }

    /// Queues referenced entities first (parent before child), then `entity`, in one outbox
    /// transaction; returns its entry.
    func enqueueSave(_ entity: any SyncableEntity, keys: Set<String>?, visited: inout Set<ObjectIdentifier>) throws -> Int64 {
        var entries: [OutboxEntry] = []
        try collectSave(entity, keys: keys, owner: nil, visited: &visited, into: &entries)
        return try bookkeeping.enqueue(entries, coalescingAfter: inFlightSeq).last ?? 0
    }

    /// The outbox entries saving `entity` needs, appended to `entries`: referenced entities first
    /// (parent before child, unless `followReferences` is off), `entity` last.
    ///
    /// - Parameters:
    ///   - editedAt: When the edit was made, on the server's timeline; now by default.
    ///   - recheck: A forced sync's recheck rather than an edit: fields equal to the last-synced
    ///     version are left out, and the entry is dated with that version's modification date, so a
    ///     value this device merely still holds never overrides a newer edit made elsewhere.
    func collectSave(
        _ entity: any SyncableEntity, keys: Set<String>?, owner: String?, editedAt: Date? = nil, recheck: Bool = false,
        followReferences: Bool = true, visited: inout Set<ObjectIdentifier>, into entries: inout [OutboxEntry]
    ) throws {
        let description = try description(of: type(of: entity))
        let name = try ensureSyncID(entity)
        visited.insert(ObjectIdentifier(entity))
        var (fields, cleared, targets) = try snapshot(entity, keys: keys, description: description)
        if let owner {
            fields[Self.ownerField] = .reference(Reference(RecordID(recordName: owner, zoneID: zoneID), action: .deleteSelf))
        }
        for (target, owned) in targets where followReferences && !visited.contains(ObjectIdentifier(target)) {
            try collectSave(target, keys: nil, owner: owned ? name : nil, recheck: recheck, visited: &visited, into: &entries)
        }
        var date = editedAt ?? editTime()
        if recheck, let base = try bookkeeping.base(name), base.record.recordChangeTag != nil {
            let held = base.record.fields ?? [:]
            fields = fields.filter { held[$0.key] != $0.value }
            cleared = cleared.filter { held[$0] != nil }
            date = base.modificationDate ?? date
        }
        liveEntities[name] = entity
        entries.append(
            OutboxEntry(
                seq: 0, kind: .save, recordType: description.recordType, recordName: name, fields: fields, cleared: cleared, editedAt: date))
    }

    /// An entity's mapped fields as record fields (`keys` limits them), the fields it clears, and the
    /// entities it references (with whether each is owned: a weak type).
    private func snapshot(
        _ entity: any SyncableEntity, keys: Set<String>?, description: EntityDescription
    ) throws -> ([String: FieldValue], Set<String>, [(any SyncableEntity, owned: Bool)]) {
        var fields: [String: FieldValue] = [:]
        var cleared: Set<String> = []
        var targets: [(any SyncableEntity, owned: Bool)] = []
        for (local, remote) in description.mapping where keys?.contains(local) ?? true {
            if let value = FieldConversion.fieldValue(of: entity.value(forKey: local)) {
                fields[remote] = value
            } else {
                cleared.insert(remote)
            }
        }
        for (local, remote) in description.references where keys?.contains(local) ?? true {
            // A placeholder stands in for an empty reference; it is never uploaded.
            guard let target = entity.value(forKey: local) as? any SyncableEntity, !isPlaceholder(target) else {
                cleared.insert(remote)
                continue
            }
            let targetName = try ensureSyncID(target)
            fields[remote] = .reference(Reference(RecordID(recordName: targetName, zoneID: zoneID)))
            targets.append((target, type(of: target).isWeak))
        }
        for list in description.referenceLists where keys?.contains(list.localKey) ?? true {
            let members = entity.value(forKey: list.localKey) as? [any SyncableEntity] ?? []
            var references: [Reference] = []
            for member in members {
                references.append(Reference(RecordID(recordName: try ensureSyncID(member), zoneID: zoneID)))
                targets.append((member, type(of: member).isWeak))
            }
            fields[list.remoteKey] = references.isEmpty ? .emptyList : .referenceList(references)
        }
        return (fields, cleared, targets)
    }
}
