import Foundation
import StratusClient
import StratusLogging
import StratusStore
import StratusSync
import Synchronization

/// Applies fetched changes to the store, in a background context whose saves carry
/// ``StoreSync/transactionAuthor`` (so they are never captured as local changes), then commits the sync.
final class StoreSyncDelegate: SyncDelegate {
    let bridge: StoreBridge
    /// Objects uploaded since the last write-back (the controller set their server dates), and the
    /// write-back scheduled for them, if any.
    private let uploaded = Mutex<(objects: [any AnyStoreObject], task: Task<Void, Never>?)>(([], nil))
    /// Objects deleted because the server deleted their records, until a capture has seen those
    /// deletions in the history (every other deletion in sync's transactions is a local cascade).
    private let remoteDeletions = Mutex<Set<ObjectID>>([])
    /// Who listens to resolved conflicts.
    private let conflictListeners = Mutex<[UUID: AsyncStream<SyncConflict>.Continuation]>([:])

    init(bridge: StoreBridge) {
        self.bridge = bridge
    }

    func allEntities(ofType type: any SyncableEntity.Type) async throws -> [any SyncableEntity] {
        guard let type = type as? any AnyStoreObject.Type else { return [] }
        let name = type.entityName
        let ids = try await bridge.reader.perform { context in
            try context.fetchObjectIDs(FetchRequest(entityName: name))
        }
        return ids.filter { !bridge.isPlaceholder($0) }.compactMap { id in
            let object = bridge.object(for: id)
            object?.invalidateIfClean()
            return object
        }
    }

    func createEntity(ofType type: any SyncableEntity.Type) async throws -> any SyncableEntity {
        guard let type = type as? any AnyStoreObject.Type else {
            throw SyncError(.unknownEntityType, "\(type) is not a StratusStoreSync entity")
        }
        return type.init(bridge: bridge, objectID: nil)
    }

    func entity(ofType type: any SyncableEntity.Type, syncID: String) async throws -> (any SyncableEntity)? {
        guard let type = type as? any AnyStoreObject.Type, let id = bridge.objectID(entity: type.entityName, syncID: syncID) else { return nil }
        let object = bridge.object(for: id)
        // Values read now come from the store as it is (an app save since the last read wins).
        object?.invalidateIfClean()
        return object
    }

    func referencePlaceholder(for type: any SyncableEntity.Type) async throws -> (any SyncableEntity)? {
        guard let type = type as? any AnyStoreObject.Type, let id = try await bridge.placeholder(of: type.entityName) else { return nil }
        return bridge.object(for: id)
    }

    func isReferencePlaceholder(_ entity: any SyncableEntity) -> Bool {
        guard let object = entity as? any AnyStoreObject, let id = object.objectID else { return false }
        return bridge.isPlaceholder(id)
    }

    func syncController(_ controller: SyncController, didFinishSync changes: SyncChanges, finishSync: FinishSync) async {
        do {
            try await apply(changes)
            try await finishSync()
        } catch {
            bridge.logger.error("could not store fetched changes; they come again with the next sync: \(error)")
        }
    }

    func syncController(_ controller: SyncController, didSave entity: (any SyncableEntity)?, record: Record?, error: (any Error)?) async {
        if let error { bridge.logger.error("the server refused a change: \(error)") }
        guard let object = entity as? any AnyStoreObject else { return }
        // Uploads replayed outside a capture (reconnection) write their server dates back too, batched
        // by a short delay. (Values a conflict resolution changed arrive through didFinishSync.)
        let bridge = bridge
        uploaded.withLock { state in
            state.objects.append(object)
            guard state.task == nil else { return }
            state.task = Task { [weak self] in
                try? await Task.sleep(for: .milliseconds(20))
                guard let self else { return }
                do {
                    try await bridge.writeBack(self.takeUploaded())
                } catch {
                    bridge.logger.error("could not write uploaded values back to the store: \(error)")
                }
            }
        }
    }

    /// Writes back what is waiting at once (``StoreSync/stop()`` calls it before the store may close).
    func flushUploaded() async {
        let task = uploaded.withLock { $0.task }
        task?.cancel()
        await task?.value
        let waiting = takeUploaded()
        guard !waiting.isEmpty else { return }
        do {
            try await bridge.writeBack(waiting)
        } catch {
            bridge.logger.error("could not write uploaded values back to the store: \(error)")
        }
    }

    func syncController(_ controller: SyncController, didResolve conflict: SyncConflict) async {
        let outcome = conflict.serverRecordDeleted ? "its deletion won over the local edit" : "kept \(conflict.resolved.keys.sorted())"
        bridge.logger.info(
            "conflict on \(conflict.versions.recordType) \(conflict.versions.recordName): \(outcome); discarded local \(conflict.discardedLocal.keys.sorted())")
        let listeners = conflictListeners.withLock { Array($0.values) }
        for listener in listeners { listener.yield(conflict) }
    }

    /// A stream of the conflicts resolved from now on (``StoreSync/conflicts()``).
    func conflicts() -> AsyncStream<SyncConflict> {
        let (stream, continuation) = AsyncStream.makeStream(of: SyncConflict.self, bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        conflictListeners.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.conflictListeners.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    /// The objects uploaded since the last call.
    func takeUploaded() -> [any AnyStoreObject] {
        uploaded.withLock { state in
            defer { state = ([], nil) }
            return state.objects
        }
    }

    /// The objects deleted by applying remote deletions and not yet seen by a capture.
    var appliedRemoteDeletions: Set<ObjectID> { remoteDeletions.withLock { $0 } }

    /// Forgets remote deletions a capture has seen.
    func forgetRemoteDeletions(_ ids: some Sequence<ObjectID>) {
        remoteDeletions.withLock { $0.subtract(ids) }
    }

    /// Inserts, updates and deletes the changed objects in one save that reaches the store.
    func apply(_ changes: SyncChanges) async throws {
        let bridge = bridge
        let applied = (changes.inserted + changes.updated).compactMap { $0.entity as? any AnyStoreObject }
        var deletions: [ObjectID] = []
        for deleted in changes.deleted {
            let entities = bridge.infos.values.filter { deleted.recordType == nil || $0.mapping.recordType == deleted.recordType }
            if let id = entities.lazy.compactMap({ bridge.objectID(entity: $0.mapping.entityName, syncID: deleted.syncID) }).first {
                deletions.append(id)
            }
        }
        let doomed = deletions
        // Known before the save, so a capture that reads the save's history tells them from cascades.
        remoteDeletions.withLock { $0.formUnion(doomed) }
        let context = bridge.writingContext()
        try await context.perform { context in
            var objects: [ObjectIdentifier: ManagedObject] = [:]
            var inserted: [(any AnyStoreObject, ManagedObject)] = []
            for entity in applied {
                if let object = bridge.existing(entity, in: context) {
                    objects[ObjectIdentifier(entity)] = object
                } else {
                    let object = context.insert(entity: type(of: entity).entityName)
                    objects[ObjectIdentifier(entity)] = object
                    inserted.append((entity, object))
                }
            }
            let resolve = { (target: any SyncableEntity) in objects[ObjectIdentifier(target)] ?? bridge.existing(target, in: context) }
            for entity in applied {
                guard let object = objects[ObjectIdentifier(entity)] else { continue }
                bridge.write(entity.takeDirtyValues(), to: object, context: context, resolve: resolve)
            }
            for id in doomed {
                if let object = try? context.existingObject(with: id) { context.delete(object) }
            }
            // On disk in one pass: a user's edit to an object inserted here cannot land in the root
            // context while the insertion waits there (it would be saved as part of sync's insertion).
            try context.saveToStore()
            for (entity, object) in inserted {
                entity.setObjectID(object.objectID)
                if let syncID = entity.loadedValues?[bridge.syncIdKey(type(of: entity).entityName)] as? String {
                    bridge.indexSyncID(syncID, for: object.objectID)
                }
            }
        }
        for id in deletions { bridge.unindex(id) }
    }
}
