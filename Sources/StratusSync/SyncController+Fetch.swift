import Foundation
import StratusClient
import StratusLogging
import StratusWire

/// What a fetch reads: the changes since the committed token, or everything (a forced full sync).
enum FetchScope: Sendable {
    case delta
    /// Every record, re-applied; `recordTypes` limits what is applied (`nil`: all types).
    case full(recordTypes: Set<String>?)
}

/// What a fetch read from the server, before it is applied.
struct FetchedRecords: Sendable {
    var records: [StratusClient.Record]
    /// Deleted record names, with their type when known.
    var deletions: [(name: String, recordType: String?)]
    /// Whether this is a full fetch (records this device synced that are missing were deleted).
    var full: Bool
    /// The record types applied (`nil`: all).
    var only: Set<String>?
}

/// A fetched batch waiting for the delegate's ``FinishSync``.
struct PendingBatch: Sendable {
    var startToken: SyncToken?
    var endToken: SyncToken
    var generation: Int
    var bases: [(String, BaseRecord)]
    var removed: [String]
    /// References whose target was missing: (target, source).
    var dangling: [(String, String)] = []
    /// Targets that arrived, whose dangling rows can go.
    var arrived: [String] = []
    /// Leave the token unset (a partial full sync on a device that never fetched).
    var keepToken = false
}

extension SyncController {
    /// Fetches the zone's changes since the committed token, applies them to entities (fields first,
    /// then references, so order within the batch does not matter) and hands them to the delegate.
    func fetchChanges(scope: FetchScope) async throws -> SyncChanges {
        if configuration.databaseScope == .public { return try await fetchPublicChanges(scope: scope) }
        let startToken = try bookkeeping.changeToken
        var only: Set<String>?
        var full = false
        if case .full(let types) = scope {
            full = true
            only = types
        }
        let feed: Database.RecordZoneChanges
        do {
            feed = try await database.allRecordZoneChanges(inZoneWith: zoneID, since: full ? nil : startToken)
        } catch let error as StratusError where error.code == .changeTokenExpired {
            logger.info("change token expired; fetching the whole zone")
            feed = try await database.allRecordZoneChanges(inZoneWith: zoneID, since: nil)
        }
        // A full fetch limited to some types must not move the token past the other types' changes.
        let endToken = only == nil ? feed.changeToken : (startToken ?? feed.changeToken)
        let batch = PendingBatch(
            startToken: startToken, endToken: endToken, generation: generation, bases: [], removed: [], keepToken: only != nil && startToken == nil)
        return try await deliver(
            FetchedRecords(
                records: try feed.modifications(), deletions: feed.deletions.map { ($0.recordID.recordName, $0.recordType) }, full: full,
                only: only),
            batch: batch)
    }

    /// Applies fetched records and deletions to entities (fields first, then references, so order
    /// within the batch does not matter), hands them to the delegate and commits on its ``FinishSync``
    /// (then runs `afterCommit`, such as acknowledging the public database's DeleteQueue entries).
    func deliver(
        _ fetched: FetchedRecords, batch startBatch: PendingBatch, afterCommit: (@Sendable () async throws -> Void)? = nil
    ) async throws -> SyncChanges {
        let full = fetched.full
        let only = fetched.only
        var batch = startBatch
        var changes = SyncChanges()
        var applied: [String: any SyncableEntity] = [:]
        var toLink: [(StratusClient.Record, any SyncableEntity, EntityDescription)] = []
        let records = fetched.records.sorted { $0.recordID.recordName < $1.recordID.recordName }
        for record in records {
            let name = record.recordID.recordName
            guard let description = descriptions[record.recordType], only?.contains(record.recordType) ?? true else {
                logger.debug("ignoring record \(name) of type \(record.recordType)")
                continue
            }
            let base = try bookkeeping.base(name)
            if !full, let tag = base?.record.recordChangeTag, tag == record.recordChangeTag {
                continue  // this device's own write, or a version already applied
            }
            if (baseGenerations[name] ?? 0) > batch.generation {
                continue  // uploaded while this fetch was under way: the device holds a newer version
            }
            if try bookkeeping.hasPendingChanges(for: name) {
                continue  // the pending upload will meet this version as a conflict and merge it
            }
            let existing = try await delegate.entity(ofType: description.type, syncID: name)
            let entity: any SyncableEntity
            if let existing {
                entity = existing
            } else {
                entity = try await delegate.createEntity(ofType: description.type)
            }
            applyFields(of: record, to: entity, description: description)
            applied[name] = entity
            toLink.append((record, entity, description))
            let change = SyncChanges.Applied(entity: entity, record: record)
            if existing == nil { changes.inserted.append(change) } else { changes.updated.append(change) }
            batch.bases.append(
                (name, BaseRecord(recordType: record.recordType, record: record.wireRecord, modificationDate: record.modificationDate)))
        }
        for (record, entity, description) in toLink {
            unresolvedTargets = []
            try await applyReferences(of: record, to: entity, description: description, batch: &applied, fetchReferences: false)
            batch.dangling += unresolvedTargets.map { ($0, record.recordID.recordName) }
        }
        try await relinkDangling(arrived: Array(applied.keys), batch: &batch, changes: &changes, applied: &applied)
        if full {
            // Records this device synced that the server no longer has were deleted while it was away.
            let present = Set(records.map(\.recordID.recordName)).union(fetched.deletions.map(\.name))
            for (name, type) in try bookkeeping.baseNames() where !present.contains(name) && (only?.contains(type) ?? true) {
                changes.deleted.append(SyncChanges.Deleted(recordType: type, syncID: name))
                batch.removed.append(name)
            }
        }
        for (name, recordType) in fetched.deletions where !batch.removed.contains(name) {
            let type = try recordType ?? bookkeeping.base(name)?.recordType
            changes.deleted.append(SyncChanges.Deleted(recordType: type, syncID: name))
            batch.removed.append(name)
        }
        machine.fetched()
        logger.debug(
            "fetched \(changes.inserted.count) new, \(changes.updated.count) updated, \(changes.deleted.count) deleted")
        if changes.isEmpty {
            if try commit(batch) { try await afterCommit?() }
            return changes
        }
        let pending = batch
        let finish = FinishSync { [self] in
            if try await self.commit(pending) { try await afterCommit?() }
        }
        await Self.$delivering.withValue(true) {
            await delegate.syncController(self, didFinishSync: changes, finishSync: finish)
        }
        return changes
    }

    /// The second pass: records that referenced a target which has now arrived get their references applied again.
    private func relinkDangling(
        arrived: [String], batch: inout PendingBatch, changes: inout SyncChanges, applied: inout [String: any SyncableEntity]
    ) async throws {
        let alreadyChanged = Set((changes.inserted + changes.updated).map(\.record.recordID.recordName))
        for (target, source) in try bookkeeping.danglingSources(of: arrived) {
            batch.arrived.append(target)
            guard !alreadyChanged.contains(source), let base = try bookkeeping.base(source), let description = descriptions[base.recordType]
            else { continue }
            guard let entity = try await delegate.entity(ofType: description.type, syncID: source) else { continue }
            let record = try StratusClient.Record(wire: base.record, zoneID: zoneID)
            unresolvedTargets = []
            try await applyReferences(of: record, to: entity, description: description, batch: &applied, fetchReferences: false)
            batch.dangling += unresolvedTargets.map { ($0, source) }
            if !changes.updated.contains(where: { $0.record.recordID.recordName == source }) {
                changes.updated.append(SyncChanges.Applied(entity: entity, record: record))
            }
        }
    }

    /// Commits a batch the delegate has persisted: bases, deletions, token and date, in one transaction.
    /// A batch fetched from a token that is no longer the committed one is stale and ignored.
    ///
    /// - Returns: Whether the batch was committed (`false`: stale).
    @discardableResult
    func commit(_ batch: PendingBatch) throws -> Bool {
        guard try bookkeeping.changeToken == batch.startToken else {
            logger.debug("ignoring a stale finishSync")
            return false
        }
        let bases = batch.bases.filter { (baseGenerations[$0.0] ?? 0) <= batch.generation }
        let removed = batch.removed.filter { (baseGenerations[$0] ?? 0) <= batch.generation }
        let now = configuration.now()
        try bookkeeping.commit(
            bases: bases, removing: removed, dangling: batch.dangling, arrived: batch.arrived,
            token: batch.keepToken ? nil : batch.endToken, date: now)
        machine.committed(date: now)
        publish()
        return true
    }

    /// Sets an entity's plain fields, sync ID and change date from a record.
    func applyFields(of record: StratusClient.Record, to entity: any SyncableEntity, description: EntityDescription) {
        entity.setValue(record.recordID.recordName, forKey: description.syncIdKey)
        entity.setValue(record.modificationDate, forKey: description.changeDateKey)
        for (local, remote) in description.mapping where !applyAssetField(of: record, local: local, remote: remote, to: entity) {
            let current = entity.value(forKey: local)
            entity.setValue(FieldConversion.localValue(of: record.fields[remote], like: current), forKey: local)
        }
    }

    /// Sets an entity's relationships from a record, resolving record names to entities through the
    /// batch, the delegate and (with `fetchReferences`) the server; an empty to-one reference gets the
    /// target type's placeholder.
    func applyReferences(
        of record: StratusClient.Record, to entity: any SyncableEntity, description: EntityDescription, batch: inout [String: any SyncableEntity],
        fetchReferences: Bool
    ) async throws {
        for (local, remote) in description.references {
            let current = entity.value(forKey: local) as? any SyncableEntity
            let hint = description.referenceTypes[local] ?? current.map { type(of: $0) }
            var target: (any SyncableEntity)?
            if case .reference(let reference)? = record.fields[remote] {
                target = try await resolve(reference.recordName, hint: hint, batch: &batch, fetch: fetchReferences)
            }
            if target == nil, let hint, let placeholder = try await delegate.referencePlaceholder(for: hint) {
                placeholders[ObjectIdentifier(placeholder)] = placeholder
                target = placeholder
            }
            entity.setValue(target, forKey: local)
        }
        for list in description.referenceLists {
            var members: [any SyncableEntity] = []
            if case .referenceList(let references)? = record.fields[list.remoteKey] {
                for reference in references {
                    if let member = try await resolve(reference.recordName, hint: list.entityType, batch: &batch, fetch: fetchReferences) {
                        members.append(member)
                    }
                }
            }
            entity.setValue(members, forKey: list.localKey)
        }
    }

    /// The local entity for a record name.
    private func resolve(
        _ name: String, hint: (any SyncableEntity.Type)?, batch: inout [String: any SyncableEntity], fetch: Bool
    ) async throws -> (any SyncableEntity)? {
        if let known = batch[name] { return known }
        var candidates: [any SyncableEntity.Type] = []
        if let hint { candidates.append(hint) }
        if let type = try bookkeeping.base(name).flatMap({ descriptions[$0.recordType]?.type }) { candidates.append(type) }
        if hint == nil { candidates += descriptions.values.map(\.type) }
        for type in candidates {
            if let found = try await delegate.entity(ofType: type, syncID: name) {
                batch[name] = found
                return found
            }
        }
        guard fetch else {
            unresolvedTargets.append(name)
            return nil
        }
        let record = try await database.record(for: RecordID(recordName: name, zoneID: zoneID))
        guard let description = descriptions[record.recordType] else { return nil }
        let entity = try await delegate.createEntity(ofType: description.type)
        applyFields(of: record, to: entity, description: description)
        batch[name] = entity
        try await applyReferences(of: record, to: entity, description: description, batch: &batch, fetchReferences: true)
        return entity
    }

    /// `entity.cloud.update(from:fetchReferences:)`.
    func update(_ entity: any SyncableEntity, from record: StratusClient.Record, fetchReferences: Bool) async throws {
        let description = try description(of: type(of: entity))
        applyFields(of: record, to: entity, description: description)
        var batch: [String: any SyncableEntity] = [record.recordID.recordName: entity]
        try await applyReferences(of: record, to: entity, description: description, batch: &batch, fetchReferences: fetchReferences)
    }
}
