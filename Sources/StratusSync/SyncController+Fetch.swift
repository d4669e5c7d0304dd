import Foundation
import StratusClient
import StratusLogging
import StratusWire

/// What a fetch reads: the changes since the committed token, or everything (a forced full sync).
enum FetchScope: Sendable {
    case delta
    /// Every record, re-applied; `recordTypes` limits what is applied (`nil`: all types).
    case full(recordTypes: Set<String>?)
    /// Every record after the server contradicted this device (zone gone, token refused): what the
    /// server no longer has is queued again instead of deleted.
    case recovery
}

/// What a fetch read from the server, before it is applied.
struct FetchedRecords: Sendable {
    /// What a record this device synced but the server did not return means.
    enum Missing: Sendable {
        /// Nothing: a delta names its deletions.
        case ignored
        /// It was deleted while this device was away (the public database's full resync).
        case deleted
        /// The server lost it (a full fetch of the private zone, whose deletions a delta fetch has
        /// just delivered, or a recovery): queue the entity again.
        case lost
        /// The change token expired (the server compacted its log, tombstones with it): a record
        /// this device synced was deleted meanwhile, and its deletion wins over an edit waiting
        /// here (decision 28); a create the server never confirmed (a base without a change tag)
        /// is not the server's to delete, and stays.
        case expired
    }

    var records: [StratusClient.Record]
    /// Deleted record names, with their type when known.
    var deletions: [(name: String, recordType: String?)]
    /// Whether every record is re-applied, even one whose change tag this device already has.
    var full: Bool
    /// The record types applied (`nil`: all).
    var only: Set<String>?
    /// What a synced record the server did not return means.
    var missing: Missing = .ignored
}

/// A fetched batch (or a write-back of resolved conflicts) waiting for the delegate's ``FinishSync``.
struct PendingBatch: Sendable {
    /// What the delivery is.
    enum Kind: Sendable {
        /// Changes fetched from the server: commits the token and the bases.
        case fetch
        /// Records whose resolved version the local store must receive: commits the markers only.
        case writeBack
    }

    var kind: Kind = .fetch
    var startToken: SyncToken?
    var endToken: SyncToken?
    var generation: Int
    var bases: [(String, BaseRecord)] = []
    var removed: [String] = []
    /// References whose target was missing: (target, source).
    var dangling: [(String, String)] = []
    /// Targets that arrived, whose dangling rows can go.
    var arrived: [String] = []
    /// Saves queued again because the server lost their records (recovery).
    var requeue: [OutboxEntry] = []
    /// Outbox entries of records whose deletion won over them, and the conflicts to report.
    var dropped: [Int64] = []
    var discarded: [SyncConflict] = []
    /// Write-back markers delivered.
    var writeBacks: [String] = []
    /// Whether this batch ends a recovery.
    var endsRecovery = false
}

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
            let startToken = try bookkeeping.changeToken
            let feed: Database.RecordZoneChanges
            do {
                feed = try await database.allRecordZoneChanges(inZoneWith: zoneID, since: startToken)
            } catch let error as StratusError where error.code == .changeTokenExpired {
                guard Self.tokenMerelyExpired(error) else {
                    logger.info("the server refused the change token; recovering from the whole zone")
                    noteContradiction(error)
                    return try await fetchWholeZone(only: nil, recovery: true)
                }
                logger.info("the change token expired; fetching the whole zone (a synced record it no longer has was deleted)")
                return try await fetchWholeZone(only: nil, recovery: false, missing: .expired)
            }
            let batch = PendingBatch(startToken: startToken, endToken: feed.changeToken, generation: generation)
            let fetched = FetchedRecords(
                records: try feed.modifications(), deletions: feed.deletions.map { ($0.recordID.recordName, $0.recordType) }, full: false)
            return try await deliver(fetched, batch: batch)
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
        var batch = PendingBatch(startToken: startToken, endToken: only == nil ? feed.changeToken : startToken, generation: generation)
        batch.endsRecovery = recovery
        var deletions: [(name: String, recordType: String?)] = []
        for deletion in feed.deletions where deletion.recordType.map({ only?.contains($0) ?? true }) ?? (only == nil) {
            let name = deletion.recordID.recordName
            // Only what this device knows of: the log keeps every tombstone the zone ever had.
            guard try bookkeeping.base(name) != nil || !(try bookkeeping.outboxEntries(for: name)).isEmpty else { continue }
            deletions.append((name, deletion.recordType))
        }
        let fetched = FetchedRecords(records: try feed.modifications(), deletions: deletions, full: true, only: only, missing: missing)
        return try await deliver(fetched, batch: batch)
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
            try bookkeeping.commit(change, inFlight: inFlightSeq)
            return true
        }
        guard try bookkeeping.changeToken == batch.startToken else {
            logger.debug("ignoring a stale finishSync")
            return false
        }
        change.bases = batch.bases.filter { (baseGenerations[$0.0] ?? 0) <= batch.generation }
        change.removedBases = batch.removed.filter { (baseGenerations[$0] ?? 0) <= batch.generation }
        change.requeue = batch.requeue
        change.droppedOutbox = batch.dropped
        change.token = batch.endToken.map { .set($0) } ?? .keep
        change.endsRecovery = batch.endsRecovery
        let now = configuration.now()
        change.date = now
        try bookkeeping.commit(change, inFlight: inFlightSeq)
        machine.committed(date: now)
        if !batch.requeue.isEmpty || !batch.dropped.isEmpty { machine.outboxChanged(pending: try bookkeeping.outboxCount()) }
        publish()
        return true
    }

    /// Sets an entity's plain fields, sync ID and change date (on this device's clock) from a record.
    func applyFields(of record: StratusClient.Record, to entity: EntityRef, description: EntityDescription) async throws {
        let name = record.recordID.recordName
        let date = deviceTime(record.modificationDate)
        let assets = assetFieldStates(of: record, description: description)
        try await entity.access { entity in
            entity.setValue(name, forKey: description.syncIdKey)
            entity.setValue(date, forKey: description.changeDateKey)
            for (local, remote) in description.mapping {
                if let pending = assets[local] {
                    // Asset-backed: the entity keeps bytes it holds for this asset, else nil until downloaded.
                    if pending { entity.setValue(nil, forKey: local) }
                    continue
                }
                let current = entity.value(forKey: local)
                entity.setValue(FieldConversion.localValue(of: record.fields[remote], like: current), forKey: local)
            }
        }
    }

    /// Sets an entity's relationships from a record, resolving record names to entities through the
    /// batch, the delegate and (with `fetchReferences`) the server; an empty to-one reference gets the
    /// target type's placeholder.
    func applyReferences(
        of record: StratusClient.Record, to entity: EntityRef, description: EntityDescription, batch: inout [String: EntityRef],
        fetchReferences: Bool
    ) async throws {
        let currentTypes = try await entity.access { entity in
            description.references.keys.reduce(into: [String: any SyncableEntity.Type]()) { types, local in
                if let current = entity.value(forKey: local) as? any SyncableEntity { types[local] = type(of: current) }
            }
        }
        var targets: [String: EntityRef?] = [:]
        for (local, remote) in description.references {
            let hint = description.referenceTypes[local] ?? currentTypes[local]
            var target: EntityRef?
            if case .reference(let reference)? = record.fields[remote] {
                target = try await resolve(reference.recordName, hint: hint, batch: &batch, fetch: fetchReferences)
            }
            if target == nil, let hint, let placeholder = try await delegatePlaceholder(for: hint) {
                placeholders[placeholder.identity] = placeholder
                target = placeholder
            }
            targets[local] = .some(target)
        }
        var lists: [String: [EntityRef]] = [:]
        for list in description.referenceLists {
            var members: [EntityRef] = []
            if case .referenceList(let references)? = record.fields[list.remoteKey] {
                for reference in references {
                    if let member = try await resolve(reference.recordName, hint: list.entityType, batch: &batch, fetch: fetchReferences) {
                        members.append(member)
                    }
                }
            }
            lists[list.localKey] = members
        }
        let resolved = targets
        let members = lists
        try await entity.access { entity in
            // Related entities share the entity's confinement: setting them here is touching them here.
            for (local, target) in resolved { entity.setValue(target?.entity, forKey: local) }
            for (local, list) in members { entity.setValue(list.map(\.entity), forKey: local) }
        }
    }

    /// The local entity for a record name.
    private func resolve(_ name: String, hint: (any SyncableEntity.Type)?, batch: inout [String: EntityRef], fetch: Bool) async throws -> EntityRef? {
        if let known = batch[name] { return known }
        var candidates: [any SyncableEntity.Type] = []
        if let hint { candidates.append(hint) }
        if let type = try bookkeeping.base(name).flatMap({ descriptions[$0.recordType]?.type }) { candidates.append(type) }
        if hint == nil { candidates += descriptions.values.map(\.type) }
        for type in candidates {
            if let found = try await delegateEntity(ofType: type, syncID: name) {
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
        let entity = try await delegateCreateEntity(ofType: description.type)
        try await applyFields(of: record, to: entity, description: description)
        batch[name] = entity
        try await applyReferences(of: record, to: entity, description: description, batch: &batch, fetchReferences: true)
        return entity
    }

    /// `entity.cloud.update(from:fetchReferences:)`.
    func update(_ entity: EntityRef, from record: StratusClient.Record, fetchReferences: Bool) async throws {
        let description = try description(of: entity.type)
        try await applyFields(of: record, to: entity, description: description)
        var batch: [String: EntityRef] = [record.recordID.recordName: entity]
        try await applyReferences(of: record, to: entity, description: description, batch: &batch, fetchReferences: fetchReferences)
    }
}
