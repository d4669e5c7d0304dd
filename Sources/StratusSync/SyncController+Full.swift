import Foundation
import StratusClient
import StratusLogging

extension SyncController {
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
        guard !machine.status.isPaused else { return SyncChanges() }
        var chosen: [EntityDescription] = []
        for type in types ?? configuration.entityTypes {
            chosen.append(try description(of: type))
        }
        var visited: Set<ObjectIdentifier> = []
        var entries: [OutboxEntry] = []
        var queued = 0
        let lastSync = machine.status.lastSyncDate
        for description in chosen {
            for entity in try await delegateAllEntities(ofType: description.type) where !visited.contains(entity.identity) {
                let (syncID, changed) = try await entity.access { (description.syncID(of: $0), description.changeDate(of: $0)) }
                if let syncID, configuration.ignoreKeys.contains(syncID) { continue }
                let known = try syncID.map { try bookkeeping.base($0) != nil } ?? false
                let before = entries.count
                if forced {
                    try await collectSave(entity, keys: nil, owner: nil, recheck: true, visited: &visited, into: &entries)
                } else if !known {
                    try await collectSave(entity, keys: nil, owner: nil, visited: &visited, into: &entries)
                } else if let changed, changed > lastSync ?? .distantPast {
                    // Changed since the last sync by this device's clock, perhaps without cloud.save().
                    try await collectSave(
                        entity, keys: nil, owner: nil, editedAt: editTime(changed), onlyChanges: true, visited: &visited, into: &entries)
                }
                if entries.count > before { queued += 1 }
            }
        }
        _ = try bookkeeping.enqueue(entries, coalescingAfter: inFlightSeq)
        logger.debug("full sync queued \(queued) entities (forced: \(forced))")
        machine.outboxChanged(pending: try bookkeeping.outboxCount())
        publish()
        let limited: Set<String>? = types == nil ? nil : Set(chosen.map(\.recordType))
        let scope: FetchScope = forced ? .full(recordTypes: limited) : .delta
        return try await sync(scope: scope)
    }
}
