import Foundation
import StratusClient
import StratusLogging

extension SyncController {
    /// Full sync: queues every local entity the server has never received (no sync ID or no
    /// last-synced version, such as data that existed before sync was adopted), uploads, then fetches.
    ///
    /// Forced, it rechecks everything instead of trusting the token: it queues every entity — only
    /// the fields that differ from the last-synced version, dated with that version's modification
    /// date, so a value the device merely still holds never overwrites a newer edit made elsewhere
    /// (the upload meets it as a conflict and the policy decides) —, fetches the changes since the
    /// token (deletions arrive as such), then every record of the zone and re-applies it. A record
    /// this device synced that the server does not have any more, although no deletion said so,
    /// was lost by the server and is queued again (Documentation/0009, decisions 9 and 26).
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
        for description in chosen {
            for entity in try await delegate.allEntities(ofType: description.type) where !visited.contains(ObjectIdentifier(entity)) {
                let known = try description.syncID(of: entity).map { try bookkeeping.base($0) != nil } ?? false
                guard forced || !known else { continue }
                try collectSave(entity, keys: nil, owner: nil, recheck: forced, visited: &visited, into: &entries)
                queued += 1
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
