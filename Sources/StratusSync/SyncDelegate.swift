import Foundation
public import StratusClient

/// The local store's side of sync: the controller finds, creates and reports entities through it,
/// so any store (`StratusStore`, Core Data, SQLite, plain objects in memory) can sync.
///
/// Entities need not be `Sendable`. The controller reads and writes the entities it gets from here
/// only in their ``SyncFieldAccess/syncConfinement``, and hands them back here; a store of
/// queue-confined objects uses them on their queue — best through `entity.syncConfinement.run { … }`,
/// which also serves a `saveAndWait()` blocking that queue (`context.performAndWait` would wait for it).
/// `Examples/Seed/NotesStore.swift` is a delegate over a `StratusStore` container.
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
    /// A long fetch (an initial sync) comes in parts of about ``SyncConfiguration/fetchBatchSize``
    /// records, one call each, in the order of the server's change feed; each part's `finishSync`
    /// commits the token to that part's end, and the next part is fetched while this one is stored.
    /// A part whose `finishSync` has not been called when this method returns ends the fetch: the
    /// parts after it come with the next sync.
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

    /// Whether `entity` is a placeholder this store handed out (never uploaded: a reference to it is
    /// saved as empty). Called in the entity's confinement; by default `false`, for stores whose
    /// placeholders are the very objects ``referencePlaceholder(for:)`` returns (those are recognised).
    ///
    /// - Parameter entity: A referenced entity.
    /// - Returns: Whether it stands in for an empty reference.
    func isReferencePlaceholder(_ entity: any SyncableEntity) -> Bool
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
    /// None but those ``referencePlaceholder(for:)`` returned.
    public func isReferencePlaceholder(_ entity: any SyncableEntity) -> Bool { false }
}

/// The remote changes one sync applied to local entities.
///
/// It holds the entities themselves, which need not be `Sendable`; the delegate uses them in their
/// confinement, as it does the entities it hands the controller.
// Safety: the entities are touched only in their confinement (see `EntityRef`); the rest are values.
public struct SyncChanges: @unchecked Sendable {
    /// An entity with the record it was updated from.
    public struct Applied: @unchecked Sendable {
        /// The entity, already holding the record's values.
        public var entity: any SyncableEntity
        /// The record.
        public var record: Record
    }

    /// A record deleted on the server: the type of the entity to delete and its sync ID.
    public struct Deleted: Hashable, Sendable, CustomStringConvertible {
        /// The record type, when known.
        public var recordType: String?
        /// The entity type of ``recordType``, when it is one of the controller's (ZenCloudKit's `ZKDeleteInfo.entityType`).
        public var entityType: (any SyncableEntity.Type)?
        /// The deleted record's name: the entity's sync ID.
        public var syncID: String

        /// Describes a deletion.
        ///
        /// - Parameters:
        ///   - recordType: The record type, when known.
        ///   - entityType: Its entity type, when known.
        ///   - syncID: The record name.
        public init(recordType: String?, entityType: (any SyncableEntity.Type)? = nil, syncID: String) {
            self.recordType = recordType
            self.entityType = entityType
            self.syncID = syncID
        }

        /// Whether both name the same record (the entity type follows from the record type).
        ///
        /// - Parameters:
        ///   - lhs: A deletion.
        ///   - rhs: Another one.
        /// - Returns: Whether the record type and sync ID are equal.
        public static func == (lhs: Deleted, rhs: Deleted) -> Bool {
            lhs.recordType == rhs.recordType && lhs.syncID == rhs.syncID
        }

        /// Hashes the record type and sync ID.
        ///
        /// - Parameter hasher: The hasher.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(recordType)
            hasher.combine(syncID)
        }

        /// `Type syncID`.
        public var description: String { "\(entityType.map { "\($0)" } ?? recordType ?? "?") \(syncID)" }
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
