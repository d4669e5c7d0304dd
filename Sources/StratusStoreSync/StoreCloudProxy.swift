public import StratusClient
import StratusStore
public import StratusSync

extension SyncableManagedObject {
    /// The object's calls to the cloud, ZenCloudKit's `entity.iCloud`: through the current
    /// ``StoreSync`` when one syncs this entity (``StoreSync/makeCurrent()``), else through the current
    /// ``SyncController`` with the app's own delegate.
    ///
    /// ```swift
    /// import StratusStoreSync
    /// import StratusSync
    ///
    /// func publish(_ note: some SyncableManagedObject) async throws {
    ///     try await note.cloud.save()
    /// }
    /// ```
    public var cloud: StoreCloudProxy { StoreCloudProxy(self) }
}

/// A managed object's calls to the cloud: `note.cloud.save()`.
///
/// With a ``StoreSync`` current for the object's entity, the calls go through it: ``save()`` uploads
/// the values the object's context holds now (what differs from the latest version this device
/// queued or synced), so the store's own capture of the same change, when the context is saved,
/// uploads nothing more. Without one, they are ``CloudProxy``'s calls through the current
/// ``SyncController``. Either way the object is read and written only on its context's queue, and
/// the `…AndWait` forms may be called inside `perform { }`.
// Safety: the object is touched only in its confinement (its context's queue).
public struct StoreCloudProxy: @unchecked Sendable {
    let object: any SyncableManagedObject
    let store: StoreSync?
    /// The calls without a ``StoreSync``.
    public let direct: CloudProxy

    init(_ object: any SyncableManagedObject) {
        self.object = object
        let current = StoreSync.current
        store = current.flatMap { $0.syncs(type(of: object).entityName) ? $0 : nil }
        direct = (object as any SyncableEntity).cloud
    }

    private var handle: ManagedObjectHandle { ManagedObjectHandle(object: object) }

    /// Saves the object's synced values (and the synced objects it references).
    ///
    /// - Returns: The record as saved; `nil` when nothing differed from what is queued or synced, or the change is queued.
    /// - Throws: ``SyncError``; with a ``StoreSync``, ``SyncError/Code/unsavedObject`` for an object never saved to the store.
    @discardableResult
    public func save() async throws -> Record? {
        guard let store else { return try await direct.save() }
        return try await store.save(handle, keys: nil)
    }

    /// Saves only some properties: ZenCloudKit's `saveKeys(_:)`.
    ///
    /// - Parameter keys: The attribute and relationship names.
    /// - Returns: The record as saved; `nil` when nothing differed or the change is queued.
    /// - Throws: What ``save()`` throws.
    @discardableResult
    public func saveKeys(_ keys: Set<String>) async throws -> Record? {
        guard let store else { return try await direct.saveKeys(keys) }
        return try await store.save(handle, keys: keys)
    }

    /// Deletes the object's record (weak objects it owns go with it); delete the object in its
    /// context as usual (with a ``StoreSync``, its capture of that deletion sends nothing more).
    ///
    /// - Throws: ``SyncError``.
    public func delete() async throws {
        guard let store else { return try await direct.delete() }
        try await store.delete(handle)
    }

    /// Sets the object's values from a record, in its context (not saved: the app saves it).
    ///
    /// - Parameters:
    ///   - record: The record.
    ///   - fetchReferences: Fetch referenced records this device does not have yet from the server
    ///     (with a ``StoreSync``, references resolve to objects the store holds; its next sync brings the others).
    /// - Throws: ``SyncError`` or ``StratusError``.
    public func update(from record: Record, fetchReferences: Bool) async throws {
        guard let store else { return try await direct.update(from: record, fetchReferences: fetchReferences) }
        try await store.update(handle, from: record, fetchReferences: fetchReferences)
    }

    /// ``save()``, blocking the calling thread until it finishes; safe inside the context's `perform { }`.
    ///
    /// - Returns: What ``save()`` returns.
    /// - Throws: What ``save()`` throws.
    @available(*, noasync, message: "use save() from async code")
    @discardableResult
    public func saveAndWait() throws -> Record? {
        try object.syncConfinement.wait { try await save() }
    }

    /// ``saveKeys(_:)``, blocking the calling thread until it finishes: ZenCloudKit's `saveKeysAndWait(_:)`.
    ///
    /// - Parameter keys: The attribute and relationship names.
    /// - Returns: What ``saveKeys(_:)`` returns.
    /// - Throws: What ``save()`` throws.
    @available(*, noasync, message: "use saveKeys(_:) from async code")
    @discardableResult
    public func saveKeysAndWait(_ keys: Set<String>) throws -> Record? {
        try object.syncConfinement.wait { try await saveKeys(keys) }
    }

    /// ``delete()``, blocking the calling thread until it finishes.
    ///
    /// - Throws: What ``delete()`` throws.
    @available(*, noasync, message: "use delete() from async code")
    public func deleteAndWait() throws {
        try object.syncConfinement.wait { try await delete() }
    }

    /// ``update(from:fetchReferences:)``, blocking the calling thread until it finishes.
    ///
    /// - Parameters:
    ///   - record: The record.
    ///   - fetchReferences: Fetch referenced records this device does not have yet.
    /// - Throws: What ``update(from:fetchReferences:)`` throws.
    @available(*, noasync, message: "use update(from:fetchReferences:) from async code")
    public func updateAndWait(from record: Record, fetchReferences: Bool) throws {
        try object.syncConfinement.wait { try await update(from: record, fetchReferences: fetchReferences) }
    }
}

/// A managed object on its way into ``StoreSync``: used only in its confinement.
// Safety: `object` is touched only inside `confinement.run`, on its context's queue.
struct ManagedObjectHandle: @unchecked Sendable {
    let object: any SyncableManagedObject
    let confinement: SyncConfinement
    let context: ObjectContext?

    init(object: any SyncableManagedObject) {
        self.object = object
        confinement = object.syncConfinement
        context = object.object.homeContext
    }
}

extension SyncError.Code {
    /// A managed object was never saved to the store, so ``StoreSync`` cannot upload it yet.
    public static let unsavedObject = SyncError.Code(rawValue: "unsavedObject")
}
