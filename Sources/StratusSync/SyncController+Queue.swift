public import Foundation
import StratusClient
import StratusLogging

/// One change handed to ``SyncController/upload(_:)``.
public enum SyncUpload: Sendable {
    /// Save the entity: every mapped field (`keys == nil`) or only those local properties.
    /// `editedAt` is when the edit was saved, by the device clock (now when `nil`): a store that
    /// reports its changes later (from its persistent history) passes the time each was made, so
    /// "later change wins" compares edit times rather than capture times.
    case save(any SyncableEntity, keys: Set<String>?, editedAt: Date? = nil)
    /// Delete the entity's record.
    case delete(any SyncableEntity)
}

extension SyncController {
    /// Queues many changes durably, in order, then uploads them in one drain (consecutive saves go
    /// in batches of up to 200), where `entity.cloud.save()` would drain after each one.
    ///
    /// Meant for a local store that reports its changes in bulk (``SyncDelegate`` implementations
    /// such as `StratusStoreSync`). Outcomes reach the delegate's `didSave`; a record the server
    /// refuses does not stop the others. Paused or offline, the changes stay queued.
    ///
    /// ```swift
    /// try await sync.upload([.save(note, keys: ["title"], editedAt: savedAt), .delete(oldNote)])
    /// ```
    ///
    /// - Parameter changes: The saves and deletions, oldest first.
    /// - Returns: How many changes were queued (deletions of entities without a sync ID are skipped).
    /// - Throws: ``SyncError`` for an entity of an unknown type; an SQLite error when the outbox cannot be written.
    @discardableResult
    public func upload(_ changes: [SyncUpload]) async throws -> Int {
        var visited: Set<ObjectIdentifier> = []
        var entries: [OutboxEntry] = []
        var queued = 0
        for change in changes {
            switch change {
            case .save(let entity, let keys, let editedAt):
                // A referenced entity queued earlier in this call is not queued again.
                visited.remove(ObjectIdentifier(entity))
                try collectSave(entity, keys: keys, owner: nil, editedAt: editedAt.map { editTime($0) }, visited: &visited, into: &entries)
                queued += 1
            case .delete(let entity):
                guard let entry = try deletionEntry(entity) else { continue }
                entries.append(entry)
                queued += 1
            }
        }
        // One outbox transaction for the whole call (one per entry made queueing 9,000 notes slow).
        _ = try bookkeeping.enqueue(entries, coalescingAfter: inFlightSeq)
        machine.outboxChanged(pending: try bookkeeping.outboxCount())
        publish()
        guard queued > 0, !machine.status.isPaused, await zoneIsReady() else { return queued }
        await drainAfterQueueing()
        return queued
    }
}
