import Foundation
import StratusLogging
import StratusStore
import StratusSync
import Synchronization

/// The store's side of sync: reads managed objects into ``StoreObject``s, writes synced values back,
/// and keeps the index from sync IDs to object IDs (so finding a record's object costs no query).
final class StoreBridge: Sendable {
    /// What the bridge knows of one synced entity.
    struct EntityInfo: Sendable {
        let mapping: any StoreEntityMapping.Type
        let attributeTypes: [String: AttributeType]
        /// The attribute holding the record name.
        let syncIdKey: String
        /// The attribute holding the server's modification date.
        let changeDateKey: String
    }

    /// Sync ID ↔ object ID, for every synced object.
    struct Index {
        var byEntity: [String: [String: ObjectID]] = [:]
        var byObject: [ObjectID: String] = [:]

        mutating func set(_ syncID: String, for id: ObjectID) {
            byEntity[id.entityName, default: [:]][syncID] = id
            byObject[id] = syncID
        }

        mutating func remove(_ id: ObjectID) {
            guard let syncID = byObject.removeValue(forKey: id) else { return }
            byEntity[id.entityName]?[syncID] = nil
        }
    }

    let container: PersistentContainer
    let infos: [String: EntityInfo]
    let logger: Logger
    /// Reads objects for the sync framework; reset before each capture so it reads what the store holds.
    let reader: ObjectContext
    private let index = Mutex(Index())
    let identities = Mutex<[ObjectID: any AnyStoreObject]>([:])
    /// The placeholder objects of the entities that have one, once made (never uploaded).
    let placeholders = Mutex<[String: ObjectID]>([:])

    /// Checks every mapping against the store's model.
    init(
        container: PersistentContainer, mappings: [any StoreEntityMapping.Type], syncIdKey: String, changeDateKey: String, logger: Logger
    ) throws {
        let names = Set(mappings.map { $0.entityName })
        var infos: [String: EntityInfo] = [:]
        for mapping in mappings {
            let name = mapping.entityName
            guard let entity = container.model.entity(named: name) else {
                throw SyncError(.unknownEntityType, "mapping \(mapping) names entity '\(name)', which the store's model does not have")
            }
            let declaredSyncIdKey = mapping.declaredSyncIdKey(mapping.syncIdKey)
            let declaredChangeDateKey = mapping.declaredChangeDateKey(mapping.changeDateKey)
            let syncIdKey = declaredSyncIdKey.isEmpty ? syncIdKey : declaredSyncIdKey
            let changeDateKey = declaredChangeDateKey.isEmpty ? changeDateKey : declaredChangeDateKey
            var types: [String: AttributeType] = [:]
            for key in Set(mapping.attributes.keys).union([syncIdKey, changeDateKey]) {
                guard let attribute = entity.attribute(named: key) else {
                    guard key == syncIdKey || key == changeDateKey else {
                        throw SyncError(.missingKey, "entity '\(name)' has no attribute '\(key)' (named by \(mapping))")
                    }
                    throw Self.missingSyncAttributes(name, syncIdKey, changeDateKey)
                }
                types[key] = attribute.type
            }
            guard types[syncIdKey] == .string, types[changeDateKey] == .date else {
                throw Self.missingSyncAttributes(name, syncIdKey, changeDateKey)
            }
            let relationships = mapping.toOne.map { ($0.key, $0.value, false) } + mapping.toMany.map { ($0.key, $0.value, true) }
            for (name, relationship, toMany) in relationships {
                let target = relationship.target.entityName
                guard let described = entity.relationship(named: name), described.isToMany == toMany,
                    described.destinationEntityName == target
                else {
                    throw SyncError(
                        .missingKey, "entity '\(entity.name)' has no \(toMany ? "to-many" : "to-one") relationship '\(name)' to '\(target)'")
                }
                guard names.contains(target) else {
                    throw SyncError(.unknownEntityType, "relationship '\(entity.name).\(name)' points to '\(target)', which is not synced")
                }
            }
            infos[name] = EntityInfo(mapping: mapping, attributeTypes: types, syncIdKey: syncIdKey, changeDateKey: changeDateKey)
        }
        self.container = container
        self.infos = infos
        self.logger = logger
        reader = container.newBackgroundContext(parent: .rootContext)
        // Root saves refault what the reader holds, so a read after a save sees it.
        reader.automaticallyMergesChangesFromParent = true
    }

    /// The error for an entity without the two attributes sync needs, naming the fix.
    static func missingSyncAttributes(_ entity: String, _ syncIdKey: String, _ changeDateKey: String) -> SyncError {
        SyncError(
            .missingKey,
            "entity '\(entity)' needs an optional string attribute '\(syncIdKey)' and an optional date attribute '\(changeDateKey)' "
                + "for sync: add StoreSync.syncAttributes(syncIdKey: \"\(syncIdKey)\", changeDateKey: \"\(changeDateKey)\") to its attributes in the model")
    }

    /// Whether `id` is a placeholder object (never uploaded).
    func isPlaceholder(_ id: ObjectID) -> Bool { placeholders.withLock { $0[id.entityName] == id } }

    /// The placeholder object of an entity, made (and saved by sync, so never captured) the first time.
    func placeholder(of entityName: String) async throws -> ObjectID? {
        if let known = placeholders.withLock({ $0[entityName] }) { return known }
        guard let mapping = infos[entityName]?.mapping else { return nil }
        let context = writingContext()
        let id = try await context.perform { context -> ObjectID? in
            guard let object = try mapping.referencePlaceholder(in: context) else { return nil }
            if context.hasChanges { try context.saveToStore() }
            return object.objectID
        }
        guard let id else { return nil }
        placeholders.withLock { $0[entityName] = id }
        return id
    }

    /// Makes (or finds) every entity's placeholder, so captures know them from the first one on.
    func loadPlaceholders() async throws {
        for name in infos.keys.sorted() { _ = try await placeholder(of: name) }
    }

    /// The attribute holding the record name of an entity's objects.
    func syncIdKey(_ entityName: String) -> String { infos[entityName]?.syncIdKey ?? "syncID" }

    // MARK: Index

    /// Reads every synced object's sync ID.
    func buildIndex() async throws {
        let keys = infos.mapValues(\.syncIdKey)
        let pairs = try await reader.perform { context in
            var pairs: [(ObjectID, String)] = []
            for (name, syncIdKey) in keys {
                var request = FetchRequest(entityName: name)
                request.fetchBatchSize = 2_000
                for object in try context.fetch(request) {
                    if case .string(let syncID)? = object.attributeValue(forKey: syncIdKey) { pairs.append((object.objectID, syncID)) }
                }
            }
            context.reset()
            return pairs
        }
        index.withLock { index in
            for (id, syncID) in pairs { index.set(syncID, for: id) }
        }
    }

    /// Every object of the synced entities, from the store.
    func allObjectIDs() async throws -> [ObjectID] {
        let names = infos.keys.sorted()
        return try await reader.perform { context in
            try names.flatMap { try context.fetchObjectIDs(FetchRequest(entityName: $0)) }
        }
    }

    func syncID(of id: ObjectID) -> String? { index.withLock { $0.byObject[id] } }

    func objectID(entity: String, syncID: String) -> ObjectID? { index.withLock { $0.byEntity[entity]?[syncID] } }

    func objectIDs(entity: String) -> [ObjectID] { index.withLock { Array(($0.byEntity[entity] ?? [:]).values) } }

    func indexSyncID(_ syncID: String, for id: ObjectID) { index.withLock { $0.set(syncID, for: id) } }

    func unindex(_ id: ObjectID) { index.withLock { $0.remove(id) } }

    // MARK: Objects

    /// The one ``StoreObject`` for an ID (until ``forgetObjects()``), so the sync framework sees one identity per object.
    func object(for id: ObjectID) -> (any AnyStoreObject)? {
        guard let info = infos[id.entityName] else { return nil }
        return identities.withLock { identities in
            if let known = identities[id] { return known }
            let made = info.mapping.objectType.init(bridge: self, objectID: id)
            identities[id] = made
            return made
        }
    }

    /// Starts a fresh read: the next values read come from the store as it is now.
    func forgetObjects() {
        identities.withLock { $0 = [:] }
        reader.performAndWait { $0.reset() }
    }

    /// An object's synced values in the sync framework's shapes, or `nil` when the store no longer has it.
    func load(_ id: ObjectID) -> [String: Any]? {
        reader.performAndWait { read(id, in: $0) }.flatMap(resolve)
    }

    /// Loads the values of many objects in one pass on the reading context (a capture of 9,000
    /// new notes paid one `performAndWait` per note).
    func preload(_ objects: [any AnyStoreObject]) {
        let pending = objects.filter { $0.loadedValues == nil }.compactMap { object in object.objectID.map { (object, $0) } }
        guard !pending.isEmpty else { return }
        let read = reader.performAndWait { context in pending.map { self.read($0.1, in: context) } }
        for ((object, _), raw) in zip(pending, read) {
            object.fill(raw.flatMap(resolve))
        }
    }

    /// An object's attributes and related object IDs, read in `context`.
    func read(_ id: ObjectID, in context: ObjectContext) -> RawValues? {
        guard let info = infos[id.entityName], let object = try? context.existingObject(with: id) else { return nil }
        var raw = RawValues()
        for key in info.attributeTypes.keys {
            if let value = object.attributeValue(forKey: key) { raw.values[key] = AttributeConversion.syncValue(value) }
        }
        for key in info.mapping.toOne.keys {
            raw.toOne[key] = object.objectIDs(forKey: key).first
        }
        for key in info.mapping.toMany.keys {
            raw.toMany[key] = Array(object.objectIDs(forKey: key))
        }
        return raw
    }

    /// Read values with related objects as ``StoreObject``s.
    func resolve(_ raw: RawValues) -> [String: Any] {
        var values: [String: Any] = raw.values
        for (key, id) in raw.toOne {
            values[key] = object(for: id)
        }
        for (key, ids) in raw.toMany {
            // Ordered by sync ID, so every device writes the same list.
            let ordered = ids.map { (syncID(of: $0) ?? "~\($0.stringRepresentation)", $0) }.sorted { $0.0 < $1.0 }
            values[key] = ordered.compactMap { object(for: $0.1) } as [any SyncableEntity]
        }
        return values
    }

    // MARK: Writing

    /// Writes synced values into a managed object: attributes converted to their types, references
    /// resolved to objects of `context` through `resolve`.
    func write(
        _ values: [String: Any?], to object: ManagedObject, context: ObjectContext,
        resolve: (any SyncableEntity) -> ManagedObject?
    ) {
        guard let info = infos[object.objectID.entityName] else { return }
        for (key, value) in values {
            if let type = info.attributeTypes[key] {
                do {
                    object.setValue(try AttributeConversion.attributeValue(value, type: type), forKey: key)
                } catch {
                    logger.error("cannot store a synced value in \(object.objectID.entityName).\(key): \(error)")
                }
            } else if info.mapping.toOne[key] != nil {
                object.setValue((value as? any SyncableEntity).flatMap(resolve), forKey: key)
            } else if info.mapping.toMany[key] != nil {
                let members = (value as? [any SyncableEntity] ?? []).compactMap(resolve)
                object.setValue(Set(members), forKey: key)
            }
        }
    }

    /// The managed object in `context` for a ``StoreObject`` that has an ID or a known sync ID.
    func existing(_ entity: any SyncableEntity, in context: ObjectContext) -> ManagedObject? {
        guard let entity = entity as? any AnyStoreObject else { return nil }
        if let id = entity.objectID { return try? context.existingObject(with: id) }
        guard let syncID = entity.loadedValues?[syncIdKey(type(of: entity).entityName)] as? String,
            let id = objectID(entity: type(of: entity).entityName, syncID: syncID)
        else { return nil }
        return try? context.existingObject(with: id)
    }
}

extension StoreBridge {
    /// A context for sync's own writes: a child of the root context, saving as ``StoreSync/transactionAuthor``;
    /// on a conflict with an app save the app's values stay (they are captured and uploaded next).
    func writingContext() -> ObjectContext {
        let context = container.newBackgroundContext(parent: .rootContext)
        context.transactionAuthor = StoreSync.transactionAuthor
        context.mergePolicy = .storeTrump
        return context
    }

    /// Every ``StoreObject`` handed out since ``forgetObjects()``.
    func knownObjects() -> [any AnyStoreObject] {
        identities.withLock { Array($0.values) }
    }
}

extension StoreBridge {
    /// What an upload writes into an object that the store must learn: its record name and the
    /// server's date. Its field values reach the store through fetches and write-backs of resolved
    /// conflicts; written from an upload's snapshot later (the delayed write-back of uploads), a
    /// stale one overwrote what a fetch had stored meanwhile (the sync simulator, seed 651).
    /// Each entity's own sync-ID and change-date keys (they may differ per entity).
    func uploadedKeys(_ entityName: String) -> Set<String> {
        guard let info = infos[entityName] else { return [] }
        return [info.syncIdKey, info.changeDateKey]
    }

    /// Writes what uploads set on objects — each object's ``uploadedKeys(_:)``, its record name and
    /// server date — back to the store, in one save as ``StoreSync/transactionAuthor``.
    ///
    /// Only those keys are taken; the object's other dirty values stay where they are, for whoever
    /// set them. A delivery (a fetch, or the write-back of a resolved conflict) sets the record's
    /// values on the same object before its own save takes them: a write-back firing in between
    /// (the delayed one of uploads, or a capture's) used to take those values too and drop them, so
    /// a resolved conflict never reached the store (under load the 20 ms delay falls in that window:
    /// `StoreSyncLifecycleTests`' resolved-conflict tests, Documentation/0018) and a reference to an
    /// object the delivery had not inserted yet was written as none (`UploadedWriteBackTests`).
    ///
    /// - Parameter objects: The objects whose uploaded values go to the store.
    func writeBack(_ objects: [any AnyStoreObject]) async throws {
        let dirty = objects.compactMap { object -> (ObjectID, DirtyValues)? in
            guard let id = object.objectID else { return nil }
            let values = object.takeDirtyValues(only: uploadedKeys(id.entityName))
            return values.isEmpty ? nil : (id, DirtyValues(values: values))
        }
        guard !dirty.isEmpty else { return }
        let context = writingContext()
        try await context.perform { context in
            for (id, dirty) in dirty {
                let values = dirty.values
                guard let object = try? context.existingObject(with: id) else { continue }
                self.write(values, to: object, context: context) { target in self.existing(target, in: context) }
                if let name = values[self.syncIdKey(id.entityName)] as? String { self.indexSyncID(name, for: id) }
            }
            try context.saveToStore()
        }
    }
}

/// Values a ``StoreObject`` took, on their way to the writing context's queue.
// Safety: the values are plain values and ``StoreObject``s (both Sendable), typed `Any` only because
// the sync framework's field access is untyped; nothing else holds the dictionary.
struct DirtyValues: @unchecked Sendable {
    let values: [String: Any?]
}

/// An object's synced attributes and related object IDs, as read on the reading context.
struct RawValues: Sendable {
    var values: [String: any Sendable] = [:]
    var toOne: [String: ObjectID] = [:]
    var toMany: [String: [ObjectID]] = [:]
}
