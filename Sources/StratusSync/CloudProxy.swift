import Foundation
public import StratusClient
import Synchronization

/// An entity's calls to the cloud: `entity.cloud.save()`.
///
/// Saves and deletes go into the controller's durable outbox first and are uploaded in order, one at
/// a time, so quick saves never race each other into duplicate records.
public struct CloudProxy: Sendable {
    /// The entity.
    public let entity: any SyncableEntity
    /// The controller, or `nil` when none is current.
    public let controller: SyncController?

    private func requireController() throws(SyncError) -> SyncController {
        guard let controller else {
            throw SyncError(
                .noController, "no SyncController is current for '\(type(of: entity).recordType)'; call makeCurrent() or withCurrent(_:)")
        }
        return controller
    }

    /// Saves every mapped field and the referenced entities (cycles are safe).
    ///
    /// Writes the record name into the entity's sync-ID property and the server's modification date
    /// into its change-date property.
    ///
    /// - Returns: The record as saved; `nil` when the change is queued (paused or offline).
    /// - Throws: ``SyncError`` when the entity's type is unknown or the server refused the record.
    @discardableResult
    public func save() async throws -> Record? {
        try await requireController().save(entity, keys: nil)
    }

    /// Saves only some local properties (and the referenced entities among them).
    ///
    /// - Parameter keys: The local property names.
    /// - Returns: The record as saved; `nil` when queued.
    /// - Throws: ``SyncError``.
    @discardableResult
    public func save(keys: Set<String>) async throws -> Record? {
        try await requireController().save(entity, keys: keys)
    }

    /// Deletes the entity's record (weak entities it owns go with it).
    ///
    /// - Throws: ``SyncError``.
    public func delete() async throws {
        try await requireController().delete(entity)
    }

    /// Sets the entity's fields from a record.
    ///
    /// - Parameters:
    ///   - record: The record.
    ///   - fetchReferences: Fetch referenced records this device does not have yet from the server.
    /// - Throws: ``SyncError`` or ``StratusError``.
    public func update(from record: Record, fetchReferences: Bool) async throws {
        try await requireController().update(entity, from: record, fetchReferences: fetchReferences)
    }

    /// ``save()``, blocking the calling thread until it finishes. Never call it from a task on the
    /// cooperative pool or an actor the controller needs.
    ///
    /// - Returns: The record as saved; `nil` when queued.
    /// - Throws: What ``save()`` throws.
    @available(*, noasync, message: "use save() from async code")
    @discardableResult
    public func saveAndWait() throws -> Record? {
        try Self.wait { try await save() }
    }

    /// ``delete()``, blocking the calling thread until it finishes.
    ///
    /// - Throws: What ``delete()`` throws.
    @available(*, noasync, message: "use delete() from async code")
    public func deleteAndWait() throws {
        try Self.wait { try await delete() }
    }

    private static func wait<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) throws -> Value {
        let box = Mutex<Result<Value, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<Value, any Error>
            do { result = .success(try await work()) } catch { result = .failure(error) }
            box.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = box.withLock({ $0 }) else {
            throw SyncError(.rejected, "the blocking call finished without a result")
        }
        return try result.get()
    }
}
