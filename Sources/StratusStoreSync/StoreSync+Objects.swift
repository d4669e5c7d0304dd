import Foundation
import StratusClient
import StratusLogging
import StratusStore
import StratusSync
import Synchronization

/// The `.cloud` calls of managed objects (``StoreCloudProxy``) while this ``StoreSync`` follows the
/// store: they and the capture of the store's saves go through the same controller, and a save made
/// both ways is uploaded once (each sends only what differs from the latest version queued or synced).
extension StoreSync {
    private static let registered = Mutex<StoreSync?>(nil)

    /// The ``StoreSync`` that managed objects' `.cloud` calls go through; see ``makeCurrent()``.
    public static var current: StoreSync? { registered.withLock { $0 } }

    /// Makes this the ``StoreSync`` for `.cloud` calls of the managed objects it syncs (and its
    /// controller the current ``SyncController``).
    public nonisolated func makeCurrent() {
        Self.registered.withLock { $0 = self }
        controller.makeCurrent()
    }

    /// Whether this syncs the entity `entityName`.
    nonisolated func syncs(_ entityName: String) -> Bool {
        bridge.infos[entityName] != nil
    }

    /// `object.cloud.save()`: uploads the values the object's context holds now.
    func save(_ handle: ManagedObjectHandle, keys: Set<String>?) async throws -> Record? {
        // The record name comes from the capture's mechanism, so a capture of the same save uses it too.
        let id = try await handle.confinement.run { handle.object.object.objectID }
        if !id.isTemporaryID { try await assignSyncIDs([id]) }
        let view = try await storeView(of: handle)
        explicitSaves.insert(view.objectID)
        let proxy = controller.cloud(view.object)
        if let keys { return try await proxy.saveKeys(keys) }
        return try await proxy.saveChanges()
    }

    /// `object.cloud.delete()`: deletes the object's record (the app deletes the object).
    func delete(_ handle: ManagedObjectHandle) async throws {
        let view = try await storeView(of: handle)
        if let syncID = bridge.syncID(of: view.objectID) { explicitDeletes.insert(syncID) }
        try await controller.cloud(view.object).delete()
    }

    /// `object.cloud.update(from:fetchReferences:)`: the record's values, set in the object's context.
    func update(_ handle: ManagedObjectHandle, from record: Record, fetchReferences: Bool) async throws {
        let view = try await storeView(of: handle)
        try await controller.cloud(view.object).update(from: record, fetchReferences: fetchReferences)
        let values = DirtyValues(values: view.object.takeDirtyValues())
        let bridge = bridge
        let context = handle.context
        try await handle.confinement.run {
            guard let context else { return }
            let object = handle.object.object
            bridge.write(values.values, to: object, context: context) { target in bridge.existing(target, in: context) }
        }
    }

    /// The sync framework's view of a managed object with the values its context holds now (read
    /// on the context's queue), apart from the bridge's objects, which hold what the store holds.
    private func storeView(of handle: ManagedObjectHandle) async throws -> (object: any AnyStoreObject, objectID: ObjectID) {
        let bridge = bridge
        let context = handle.context
        let (id, raw) = try await handle.confinement.run { () throws -> (ObjectID, RawValues?) in
            let object = handle.object.object
            let id = object.objectID
            guard !id.isTemporaryID, let context else {
                throw SyncError(
                    .unsavedObject,
                    "this \(id.entityName) object has not been saved to the store yet, and StoreSync uploads what the store holds: "
                        + "save its context (saveChain), then call cloud.save() — or let StoreSync capture the save by itself")
            }
            return (id, bridge.read(id, in: context))
        }
        guard let raw, let info = bridge.infos[id.entityName] else {
            throw SyncError(.unknownEntityType, "\(id.entityName) is not among the entities this StoreSync syncs")
        }
        let view = info.mapping.objectType.init(bridge: bridge, objectID: id)
        var values = bridge.resolve(raw)
        // The store's sync ID wins over the context's: a context that has not merged sync's write-back
        // yet must not make the object look new (a second record).
        if let known = bridge.syncID(of: id) { values[info.syncIdKey] = known }
        view.fill(values)
        return (view, id)
    }
}
