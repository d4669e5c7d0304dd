import Foundation
public import StratusClient

/// The local store's side of sync: the controller finds, creates and reports entities through it,
/// so any store (`StratusStore`, SQLite, plain objects in memory) can sync.
public protocol SyncDelegate: Sendable {
    /// Every local entity of a type.
    ///
    /// - Parameter type: The entity type.
    /// - Returns: The entities.
    func allEntities(ofType type: any SyncableEntity.Type) async throws -> [any SyncableEntity]

    /// Creates (and inserts) a new, empty entity of a type, for a record that arrived.
    ///
    /// - Parameter type: The entity type.
    /// - Returns: The entity.
    func createEntity(ofType type: any SyncableEntity.Type) async throws -> any SyncableEntity

    /// The local entity of a type whose sync ID is `syncID`, if any.
    ///
    /// - Parameters:
    ///   - type: The entity type.
    ///   - syncID: The record name.
    /// - Returns: The entity, or `nil`.
    func entity(ofType type: any SyncableEntity.Type, syncID: String) async throws -> (any SyncableEntity)?

    /// An entity was saved to the cloud (`record`), or could not be (`error`).
    ///
    /// - Parameters:
    ///   - controller: The controller.
    ///   - entity: The entity (or `nil` when the store no longer has it).
    ///   - record: The record as saved.
    ///   - error: Why it was not saved.
    func syncController(_ controller: SyncController, didSave entity: (any SyncableEntity)?, record: Record?, error: (any Error)?) async

    /// A sync fetched and applied remote changes to entities; persist them, delete the deleted ones,
    /// then call `finishSync`. Only then does the controller advance its change token and its
    /// last-synced versions: until it is called, the same changes are delivered again next time.
    ///
    /// - Parameters:
    ///   - controller: The controller.
    ///   - changes: New, updated and deleted entities.
    ///   - finishSync: Commits the sync; call it once the local store holds the changes.
    func syncController(_ controller: SyncController, didFinishSync changes: SyncChanges, finishSync: FinishSync) async

    /// The entity to put in place of an empty or missing to-one reference to `type`; by default
    /// the type's static ``SyncableEntity/referencePlaceholder``. Override it when each store has
    /// its own placeholder object. Placeholders are never uploaded.
    ///
    /// - Parameter type: The target type of the reference.
    /// - Returns: The placeholder, or `nil` to leave the reference empty.
    func referencePlaceholder(for type: any SyncableEntity.Type) async throws -> (any SyncableEntity)?

    /// A conflict was resolved; `conflict` names the values that did not survive, so no write is lost silently.
    ///
    /// - Parameters:
    ///   - controller: The controller.
    ///   - conflict: What conflicted and how it was resolved.
    func syncController(_ controller: SyncController, didResolve conflict: SyncConflict) async
}

extension SyncDelegate {
    /// Does nothing.
    public func syncController(_ controller: SyncController, didSave entity: (any SyncableEntity)?, record: Record?, error: (any Error)?) async {}
    /// Does nothing.
    public func syncController(_ controller: SyncController, didResolve conflict: SyncConflict) async {}
    /// The type's static placeholder.
    public func referencePlaceholder(for type: any SyncableEntity.Type) async throws -> (any SyncableEntity)? {
        type.referencePlaceholder
    }
}

/// The remote changes one sync applied to local entities.
public struct SyncChanges: Sendable {
    /// An entity with the record it was updated from.
    public struct Applied: Sendable {
        /// The entity, already holding the record's values.
        public var entity: any SyncableEntity
        /// The record.
        public var record: Record
    }

    /// A record deleted on the server.
    public struct Deleted: Hashable, Sendable {
        /// The record type, when known.
        public var recordType: String?
        /// The deleted record's name: the entity's sync ID.
        public var syncID: String
    }

    /// Entities created for records new to this device.
    public var inserted: [Applied] = []
    /// Existing entities updated from their records.
    public var updated: [Applied] = []
    /// Records deleted on the server; delete their entities.
    public var deleted: [Deleted] = []

    /// Whether nothing changed.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

/// Commits a sync (advances the change token and the last-synced versions); see
/// ``SyncDelegate/syncController(_:didFinishSync:finishSync:)``.
public struct FinishSync: Sendable {
    let commit: @Sendable () async throws -> Void

    /// Commits the sync.
    ///
    /// - Throws: An error when the bookkeeping store cannot be written.
    public func callAsFunction() async throws {
        try await commit()
    }
}
