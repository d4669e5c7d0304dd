import Foundation
public import StratusClient

/// An entity's calls to the cloud: `entity.cloud.save()`, ZenCloudKit's `entity.iCloud`.
///
/// Saves and deletes go into the controller's durable outbox first and are uploaded in order, one at
/// a time, so quick saves never race each other into duplicate records.
///
/// The entity need not be `Sendable`: the controller reads and writes it only in its
/// ``SyncFieldAccess/syncConfinement``. The `…AndWait` forms block the calling thread; called on the
/// entity's own queue (inside `context.perform { }`), that thread runs the controller's work on the
/// entity meanwhile, so they do not wait for themselves.
// Safety: the entity is touched only in its confinement (see `EntityRef`).
public struct CloudProxy: @unchecked Sendable {
    private let reference: EntityRef
    /// The controller, or `nil` when none is current.
    public let controller: SyncController?

    init(entity: any SyncableEntity, controller: SyncController?) {
        reference = EntityRef(entity)
        self.controller = controller
    }

    /// The entity.
    public var entity: any SyncableEntity { reference.entity }

    private func requireController() throws(SyncError) -> SyncController {
        guard let controller else {
            throw SyncError(
                .noController,
                "no SyncController is current for '\(reference.type.recordType)': call makeCurrent() on the controller once it is set up, "
                    + "or run the call inside controller.withCurrent { }")
        }
        return controller
    }

    /// Saves every mapped field and the referenced entities (cycles are safe).
    ///
    /// Writes the record name into the entity's sync-ID property and the server's modification date
    /// (on this device's clock) into its change-date property.
    ///
    /// The delegate hears of an outcome before this returns it: `didSave`, and `didResolve` for a
    /// conflict the policy resolved on the way or for a deletion on another device that won over
    /// the edit (then this returns `nil`). A change still queued when this returns — paused,
    /// offline, or the upload stopped before it, such as for a record found gone, which a fetch
    /// settles next — reaches the delegate later (Documentation/0009, decision 41).
    ///
    /// - Returns: The record as saved; `nil` when the change is queued (paused or offline) or a
    ///   deletion elsewhere won over it.
    /// - Throws: ``SyncError`` when the entity's type is unknown, its sync ID is ignored, or the server refused the record.
    @discardableResult
    public func save() async throws -> Record? {
        try await requireController().save(reference, keys: nil)
    }

    /// Saves only some local properties (and the referenced entities among them): ZenCloudKit's `saveKeys(_:)`.
    ///
    /// - Parameter keys: The local property names.
    /// - Returns: The record as saved; `nil` when queued.
    /// - Throws: ``SyncError``.
    @discardableResult
    public func saveKeys(_ keys: Set<String>) async throws -> Record? {
        try await requireController().save(reference, keys: keys)
    }

    /// ``saveKeys(_:)``, under the name earlier versions used.
    ///
    /// - Parameter keys: The local property names.
    /// - Returns: The record as saved; `nil` when queued.
    /// - Throws: ``SyncError``.
    @discardableResult
    public func save(keys: Set<String>) async throws -> Record? {
        try await saveKeys(keys)
    }

    /// Saves the fields that differ from the latest version this device has queued or synced, and
    /// nothing when none does: for a store that also reports its changes by itself (`StratusStoreSync`),
    /// so the same change is never uploaded twice.
    ///
    /// - Returns: The record as saved; `nil` when nothing differed or the change is queued.
    /// - Throws: What ``save()`` throws.
    @discardableResult
    public func saveChanges() async throws -> Record? {
        try await requireController().save(reference, keys: nil, onlyChanges: true)
    }

    /// Deletes the entity's record (weak entities it owns go with it).
    ///
    /// - Throws: ``SyncError``.
    public func delete() async throws {
        try await requireController().delete(reference)
    }

    /// Sets the entity's fields from a record.
    ///
    /// - Parameters:
    ///   - record: The record.
    ///   - fetchReferences: Fetch referenced records this device does not have yet from the server.
    /// - Throws: ``SyncError`` or ``StratusError``.
    public func update(from record: Record, fetchReferences: Bool) async throws {
        try await requireController().update(reference, from: record, fetchReferences: fetchReferences)
    }

    /// ``save()``, blocking the calling thread until it finishes. Never call it from a task on the
    /// cooperative pool or an actor the controller needs; on the entity's own queue it is safe.
    ///
    /// - Returns: The record as saved; `nil` when queued.
    /// - Throws: What ``save()`` throws.
    @available(*, noasync, message: "use save() from async code")
    @discardableResult
    public func saveAndWait() throws -> Record? {
        try wait { try await save() }
    }

    /// ``saveKeys(_:)``, blocking the calling thread until it finishes: ZenCloudKit's `saveKeysAndWait(_:)`.
    ///
    /// - Parameter keys: The local property names.
    /// - Returns: The record as saved; `nil` when queued.
    /// - Throws: What ``save()`` throws.
    @available(*, noasync, message: "use saveKeys(_:) from async code")
    @discardableResult
    public func saveKeysAndWait(_ keys: Set<String>) throws -> Record? {
        try wait { try await saveKeys(keys) }
    }

    /// ``delete()``, blocking the calling thread until it finishes.
    ///
    /// - Throws: What ``delete()`` throws.
    @available(*, noasync, message: "use delete() from async code")
    public func deleteAndWait() throws {
        try wait { try await delete() }
    }

    /// ``update(from:fetchReferences:)``, blocking the calling thread until it finishes.
    ///
    /// - Parameters:
    ///   - record: The record.
    ///   - fetchReferences: Fetch referenced records this device does not have yet from the server.
    /// - Throws: What ``update(from:fetchReferences:)`` throws.
    @available(*, noasync, message: "use update(from:fetchReferences:) from async code")
    public func updateAndWait(from record: Record, fetchReferences: Bool) throws {
        try wait { try await update(from: record, fetchReferences: fetchReferences) }
    }

    /// Runs `work` and blocks until it ends: serving the entity's queue meanwhile when called on it.
    private func wait<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) throws -> Value {
        try reference.confinement.wait(work)
    }
}
