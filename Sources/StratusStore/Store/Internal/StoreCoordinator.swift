import Synchronization

/// Connects the root context to the store once ``PersistentContainer/loadPersistentStores()`` has opened it.
final class StoreCoordinator: Sendable {
    let model: ObjectModel
    let containerName: String
    private let loaded = Mutex<PersistentStore?>(nil)

    init(model: ObjectModel, containerName: String) {
        self.model = model
        self.containerName = containerName
    }

    var resolved: ResolvedModel { model.resolved }

    /// Attaches the opened store.
    func attach(_ store: PersistentStore) {
        loaded.withLock { $0 = store }
    }

    /// Detaches and returns the store.
    func detach() -> PersistentStore? {
        loaded.withLock { loaded in
            defer { loaded = nil }
            return loaded
        }
    }

    /// The store, or ``StoreError/Code/storeNotLoaded``.
    func store() throws -> PersistentStore {
        guard let store = loaded.withLock({ $0 }) else {
            throw StoreError(
                code: .storeNotLoaded,
                message: "the store of container \"\(containerName)\" is not loaded: await loadPersistentStores() first")
        }
        return store
    }
}
