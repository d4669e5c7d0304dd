import Foundation
public import StratusStore
public import StratusSync

/// A `StratusStore` managed object as a sync entity, the shape of ZenCloudKit's Core Data entities:
/// a wrapper class (not `Sendable`, confined to its context's queue) that declares its record type
/// and mapping the ZenCloudKit way, and calls `note.cloud.save()`.
///
/// The controller reads and writes the object only on its context's queue (``SyncConfinement/init(context:)``),
/// so `.cloud` calls work inside `perform { }` (the `…AndWait` forms) and outside it, while touching
/// the object itself off its queue still stops the program, as it always does. Attributes convert to
/// the sync framework's values and back; to-one and to-many relationships are other
/// `SyncableManagedObject`s. It is also a ``StoreEntityMapping``: the same type can be handed to a
/// ``StoreSync``, whose automatic capture and the object's `.cloud` calls then upload each change once.
///
/// ```swift
/// import StratusStore
/// import StratusStoreSync
/// import StratusSync
///
/// final class Folder: SyncableManagedObject {
///     static let entityName = "Folder"
///     static let mapping = ["name": "name"]
///     let object: ManagedObject
///     init(object: ManagedObject) { self.object = object }
/// }
///
/// final class Note: SyncableManagedObject {
///     static let entityName = "Note"
///     static let mapping = ["title": "title", "body": "text"]
///     static let references = ["folder": "folder"]
///     static let referenceTypes: [String: any SyncableEntity.Type] = ["folder": Folder.self]
///     let object: ManagedObject
///     init(object: ManagedObject) { self.object = object }
/// }
/// ```
public protocol SyncableManagedObject: AnyObject, ManagedObjectWrapper, SyncableEntity, StoreEntityMapping {}

extension SyncableManagedObject {
    /// The entity's name.
    public static var recordType: String { entityName }
    /// The configuration's (both protocols default to it).
    public static var syncIdKey: String { "" }
    /// The configuration's (both protocols default to it).
    public static var changeDateKey: String { "" }
    /// Not weak.
    public static var isWeak: Bool { false }

    /// The queue of the object's context.
    public var syncConfinement: SyncConfinement { SyncConfinement(context: object.homeContext) }

    /// The object's identity: two wrappers of one object are one entity.
    public var syncIdentity: ObjectIdentifier { ObjectIdentifier(object) }

    /// An attribute in the sync framework's shape, or a relationship as wrappers of its target type.
    ///
    /// - Parameter key: An attribute or relationship of the entity.
    /// - Returns: The value.
    public func value(forKey key: String) -> Any? {
        if let target = Self.referenceTypes[key] as? any SyncableManagedObject.Type {
            return object.value(forKey: key, as: ManagedObject.self).map { target.init(object: $0) }
        }
        if let list = Self.referenceLists.first(where: { $0.localKey == key }), let target = list.entityType as? any SyncableManagedObject.Type {
            let members = object.value(forKey: key, as: Set<ManagedObject>.self) ?? []
            return members.sorted { $0.objectID < $1.objectID }.map { target.init(object: $0) as any SyncableEntity }
        }
        return object.attributeValue(forKey: key).map(AttributeConversion.syncValue)
    }

    /// Sets an attribute from a sync value, or a relationship from wrappers.
    ///
    /// - Parameters:
    ///   - value: The value.
    ///   - key: An attribute or relationship of the entity.
    public func setValue(_ value: Any?, forKey key: String) {
        if Self.referenceTypes[key] != nil {
            object.setValue((value as? any SyncableManagedObject).map { local($0.object, key) }, forKey: key)
        } else if Self.referenceLists.contains(where: { $0.localKey == key }) {
            let members = (value as? [any SyncableEntity] ?? []).compactMap { ($0 as? any SyncableManagedObject).map { local($0.object, key) } }
            object.setValue(Set(members), forKey: key)
        } else if let type = object.entity.attribute(named: key)?.type {
            do {
                object.setValue(try AttributeConversion.attributeValue(value, type: type), forKey: key)
            } catch {
                preconditionFailure("\(Self.entityName).\(key): \(error)")
            }
        } else {
            preconditionFailure("\(Self.entityName) has no attribute or synced relationship '\(key)'")
        }
    }

    /// `related` as an object of this object's context: itself, or the same object looked up here
    /// by ID when the sync framework found it in another context (the delegate's) and it is saved.
    private func local(_ related: ManagedObject, _ key: String) -> ManagedObject {
        guard let home = object.homeContext, related.homeContext !== home else { return related }
        let id = related.objectID
        precondition(
            !id.isTemporaryID,
            "\(Self.entityName).\(key): the related \(id.entityName) object is in another context and not saved yet; "
                + "keep an entity and the entities it references in one context")
        return home.object(with: id)
    }

    /// The mapped attributes.
    public static var attributes: [String: String] { mapping }

    /// The to-one references whose targets are `SyncableManagedObject`s.
    public static var toOne: [String: StoreRelationshipMapping] {
        references.reduce(into: [:]) { toOne, pair in
            guard let target = referenceTypes[pair.key] as? any StoreEntityMapping.Type else { return }
            toOne[pair.key] = StoreRelationshipMapping(field: pair.value, target: target)
        }
    }

    /// The reference lists whose members are `SyncableManagedObject`s.
    public static var toMany: [String: StoreRelationshipMapping] {
        referenceLists.reduce(into: [:]) { toMany, list in
            guard let target = list.entityType as? any StoreEntityMapping.Type else { return }
            toMany[list.localKey] = StoreRelationshipMapping(field: list.remoteKey, target: target)
        }
    }

    /// A fetch predicate for the object whose sync ID is `syncID`: ZenCloudKit's
    /// `predicateForId(syncId:)`, for a delegate's ``SyncDelegate/entity(ofType:syncID:)``.
    ///
    /// ```swift
    /// import StratusStore
    /// import StratusStoreSync
    ///
    /// func find<Entity: SyncableManagedObject>(_ type: Entity.Type, syncID: String, in context: ObjectContext) throws -> Entity? {
    ///     try context.fetch(Entity.self, where: Entity.predicateForId(syncID)).first
    /// }
    /// ```
    ///
    /// - Parameter syncID: The record name.
    /// - Returns: `syncIdKey == syncID` (the current controller's global key when the type has none).
    public static func predicateForId(_ syncID: String) -> FetchPredicate {
        PredicateKey<String>(resolvedSyncIdKey) == syncID
    }
}

extension SyncConfinement {
    /// The queue of a `StratusStore` context: the controller reads and writes the context's objects
    /// there (`perform`), or on the thread of a `saveAndWait()` blocking it.
    ///
    /// - Parameter context: The context; `nil` (its objects' context is gone) refuses every access.
    public init(context: ObjectContext?) {
        let identity: AnyObject = context ?? ContextGone.shared
        self.init(
            identity: identity, isCurrent: { [weak context] in context?.isOnQueue ?? false },
            perform: { [weak context] body in
                guard let context else { return false }
                await context.perform { _ in body() }
                return true
            })
    }
}

/// What a confinement stands for when the context is gone.
private final class ContextGone: Sendable {
    static let shared = ContextGone()
}
