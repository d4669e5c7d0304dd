import Foundation

/// Field access by name, the way the sync framework reads and writes an entity (Core Data's
/// key-value coding: `value(forKey:)` and `setValue(_:forKey:)`).
///
/// Values are Swift values (`String`, `Int`, `Int64`, `Double`, `Bool`, `Date`, `Data`, arrays of
/// those), another ``SyncableEntity`` for a to-one reference, and `[any SyncableEntity]` for a
/// to-many one.
///
/// An entity need not be `Sendable`. A queue-confined object (an `NSManagedObject`, a `StratusStore`
/// managed object) names its queue in ``syncConfinement``, and the controller reads and writes it
/// only there; a thread-safe entity keeps the default, ``SyncConfinement/anywhere``. The example is
/// a thread-safe entity; `Examples/Seed/Person.swift` is a managed one.
///
/// ```swift
/// import Foundation
/// import StratusSync
///
/// // Safety: `fields` is read and written only under `lock`.
/// final class Memo: SyncableEntity, @unchecked Sendable {
///     private let lock = NSLock()
///     private var fields: [String: Any] = [:]
///     func value(forKey key: String) -> Any? { lock.withLock { fields[key] } }
///     func setValue(_ value: Any?, forKey key: String) { lock.withLock { fields[key] = value } }
///     static let recordType = "Memo"
///     static let mapping = ["title": "title", "body": "text"]
///     static let syncIdKey = "syncID"
///     static let changeDateKey = "modified"
/// }
/// ```
public protocol SyncFieldAccess: AnyObject {
    /// The value of a property; `nil` when it has none.
    ///
    /// - Parameter key: The local property name.
    /// - Returns: The value.
    func value(forKey key: String) -> Any?

    /// Sets a property; `nil` clears it.
    ///
    /// - Parameters:
    ///   - value: The new value.
    ///   - key: The local property name.
    func setValue(_ value: Any?, forKey key: String)

    /// Where the entity may be used; ``SyncConfinement/anywhere`` by default. Read from any thread,
    /// so return a value fixed when the entity was made.
    var syncConfinement: SyncConfinement { get }

    /// What the entity stands for, to tell two entities apart (cycles, placeholders): the entity
    /// itself by default; a wrapper returns its object's, so two wrappers of one object are one entity.
    /// Read from any thread.
    var syncIdentity: ObjectIdentifier { get }
}

extension SyncFieldAccess {
    /// A thread-safe entity.
    public var syncConfinement: SyncConfinement { .anywhere }
    /// The entity itself.
    public var syncIdentity: ObjectIdentifier { ObjectIdentifier(self) }
}

/// A to-many relationship: the local property holds `[any SyncableEntity]`, the record a list of references.
public struct ReferenceList: Sendable {
    /// The type of the entities in the list.
    public var entityType: any SyncableEntity.Type
    /// The local property holding the array.
    public var localKey: String
    /// The record field holding the list of references.
    public var remoteKey: String

    /// Creates a to-many relationship description.
    ///
    /// - Parameters:
    ///   - entityType: The type of the entities in the list.
    ///   - localKey: The local property holding the array.
    ///   - remoteKey: The record field holding the list of references.
    public init(entityType: any SyncableEntity.Type, localKey: String, remoteKey: String) {
        self.entityType = entityType
        self.localKey = localKey
        self.remoteKey = remoteKey
    }
}

#if compiler(>=6.2)
/// What makes an entity type's metatype `Sendable` (the controller passes `Note.self` between its
/// tasks) while the entities themselves need not be: `SendableMetatype` from Swift 6.2 on; before,
/// every metatype was `Sendable` already.
public typealias SyncableEntityType = SendableMetatype
#else
/// What makes an entity type's metatype `Sendable`: nothing before Swift 6.2, where every metatype was.
public protocol SyncableEntityType {}
#endif

/// An entity that syncs as records of one type.
///
/// Only ``recordType`` and ``mapping`` are required. ``syncIdKey`` and ``changeDateKey`` fall back to
/// the controller's global defaults; a setup where a type has neither fails with
/// ``SyncError/Code/missingKey`` naming the type. Every requirement has the type ZenCloudKit's had,
/// so a declaration written the seed's way is the one the controller reads
/// (`static let changeDateKey: String = "modified"`), never one the protocol's default hides; the
/// keys may also be declared `String?`, as the global ones are (``OptionalSyncKeys``).
public protocol SyncableEntity: SyncFieldAccess, SyncableEntityType, OptionalSyncKeys {
    /// The record type, such as `"Note"`.
    static var recordType: String { get }
    /// Local property → record field, for plain values (not references).
    static var mapping: [String: String] { get }
    /// The local property that stores the record name; `""` (the default) uses the global one.
    static var syncIdKey: String { get }
    /// The local property that stores when the entity last changed, on this device's clock: the
    /// controller writes the server's modification date there (converted to this clock), the app may
    /// set it on each edit, and a full sync uploads what changed after the last successful sync.
    /// `""` (the default) uses the global one.
    static var changeDateKey: String { get }
    /// To-one relationships: local property → record field holding a reference.
    static var references: [String: String] { get }
    /// The target types of to-one relationships, by local property; lets a fetched reference find
    /// its entity and its ``referencePlaceholder`` even before the target has synced.
    static var referenceTypes: [String: any SyncableEntity.Type] { get }
    /// To-many relationships.
    static var referenceLists: [ReferenceList] { get }
    /// Whether entities of this type are owned by whatever refers to them: each gets a `DELETE_SELF`
    /// back-reference to its referrer, so deleting the referrer deletes it on every device.
    static var isWeak: Bool { get }
    /// An entity put in place of an empty or missing to-one reference to this type, so a required
    /// relationship is never `nil`. A store whose placeholder is an object of its own answers
    /// ``SyncDelegate/referencePlaceholder(for:)`` instead.
    static var referencePlaceholder: (any SyncableEntity)? { get }
}

extension SyncableEntity {
    /// No per-type key: the global default applies.
    public static var syncIdKey: String { "" }
    /// No per-type key: the global default applies.
    public static var changeDateKey: String { "" }
    /// No to-one relationships.
    public static var references: [String: String] { [:] }
    /// No declared target types.
    public static var referenceTypes: [String: any SyncableEntity.Type] { [:] }
    /// No to-many relationships.
    public static var referenceLists: [ReferenceList] { [] }
    /// Not weak.
    public static var isWeak: Bool { false }
    /// No placeholder.
    public static var referencePlaceholder: (any SyncableEntity)? { nil }

    /// The entity's calls to the cloud, through the current ``SyncController``.
    ///
    /// ```swift
    /// import StratusSync
    ///
    /// func publish(_ note: some SyncableEntity) async throws {
    ///     try await note.cloud.save()
    /// }
    /// ```
    public var cloud: CloudProxy { CloudProxy(entity: self, controller: SyncController.current) }

    /// A full sync of this type only, through the current ``SyncController``: ZenCloudKit's
    /// `Person.syncEntities(forced:)` (``SyncController/syncEntities(specific:forced:)`` with this type).
    ///
    /// ```swift
    /// import StratusSync
    ///
    /// func refresh<Entity: SyncableEntity>(_ type: Entity.Type) async throws {
    ///     try await Entity.syncEntities(forced: false)
    /// }
    /// ```
    ///
    /// - Parameter forced: Recheck everything instead of trusting the change token and dates.
    /// - Returns: The changes delivered to the delegate.
    /// - Throws: ``SyncError/Code/noController`` when no controller is current, else what the controller throws.
    @discardableResult
    public static func syncEntities(forced: Bool = false) async throws -> SyncChanges {
        guard let controller = SyncController.current else {
            throw SyncError(
                .noController, "no SyncController is current for \(Self.self).syncEntities: call makeCurrent() on the controller once it is set up")
        }
        return try await controller.syncEntities(specific: [Self.self], forced: forced)
    }

    /// A test for the entity whose sync ID is `syncID`: ZenCloudKit's `predicateForId(syncId:)`, for a
    /// delegate's ``SyncDelegate/entity(ofType:syncID:)`` over objects in memory (`StratusStoreSync`
    /// gives `StratusStore` entities a fetch predicate of the same name). Use it in the entity's confinement.
    ///
    /// ```swift
    /// import StratusSync
    ///
    /// func find<Entity: SyncableEntity>(_ syncID: String, among entities: [Entity]) -> Entity? {
    ///     entities.first(where: Entity.predicateForId(syncID))
    /// }
    /// ```
    ///
    /// - Parameter syncID: The record name.
    /// - Returns: Whether an entity has it, reading ``syncIdKey`` (the current controller's global key when the type has none).
    public static func predicateForId(_ syncID: String) -> (Self) -> Bool {
        let key = resolvedSyncIdKey
        return { ($0.value(forKey: key) as? String) == syncID }
    }

    /// ``syncIdKey`` (either spelling, ``OptionalSyncKeys``), or the current controller's global one when
    /// the type has none (`"syncID"` without a controller).
    public static var resolvedSyncIdKey: String {
        let declared = declaredSyncIdKey(syncIdKey)
        return declared.isEmpty ? SyncController.current?.configuration.syncIdKey ?? "syncID" : declared
    }
}

/// The resolved keys of one entity type, checked once at setup.
struct EntityDescription: Sendable {
    let type: any SyncableEntity.Type
    let recordType: String
    let syncIdKey: String
    let changeDateKey: String
    /// Plain fields, local → remote, without excluded keys.
    let mapping: [String: String]
    let references: [String: String]
    let referenceTypes: [String: any SyncableEntity.Type]
    let referenceLists: [ReferenceList]
    let isWeak: Bool

    /// Every remote field this type writes (mapped fields and references).
    var remoteKeys: Set<String> {
        Set(mapping.values).union(references.values).union(referenceLists.map(\.remoteKey))
    }

    init(type: any SyncableEntity.Type, globalSyncIdKey: String?, globalChangeDateKey: String?, excludedKeys: Set<String>) throws(SyncError) {
        let declaredSyncIdKey = type.declaredSyncIdKey(type.syncIdKey)
        let declaredChangeDateKey = type.declaredChangeDateKey(type.changeDateKey)
        guard let syncIdKey = declaredSyncIdKey.isEmpty ? globalSyncIdKey : declaredSyncIdKey else {
            throw SyncError(
                .missingKey,
                "entity type '\(type)' (record type '\(type.recordType)') has no syncIdKey: declare `static let syncIdKey = \"syncID\"` "
                    + "on it, or pass syncIdKey: to SyncConfiguration")
        }
        guard let changeDateKey = declaredChangeDateKey.isEmpty ? globalChangeDateKey : declaredChangeDateKey else {
            throw SyncError(
                .missingKey,
                "entity type '\(type)' (record type '\(type.recordType)') has no changeDateKey: declare `static let changeDateKey = "
                    + "\"modified\"` on it, or pass changeDateKey: to SyncConfiguration")
        }
        self.type = type
        self.recordType = type.recordType
        self.syncIdKey = syncIdKey
        self.changeDateKey = changeDateKey
        self.mapping = type.mapping.filter { !excludedKeys.contains($0.key) }
        self.references = type.references.filter { !excludedKeys.contains($0.key) }
        self.referenceTypes = type.referenceTypes
        self.referenceLists = type.referenceLists.filter { !excludedKeys.contains($0.localKey) }
        self.isWeak = type.isWeak
    }

    /// The description of `type` among a controller's, or an error naming the type and the fix.
    static func lookup(_ type: any SyncableEntity.Type, in descriptions: [String: EntityDescription]) throws(SyncError) -> EntityDescription {
        guard let description = descriptions[type.recordType], ObjectIdentifier(description.type) == ObjectIdentifier(type) else {
            throw SyncError(
                .unknownEntityType,
                "entity type '\(type)' is not among the controller's entity types; add it to SyncConfiguration(entityTypes:)")
        }
        return description
    }

    /// The entity's record name, if it has one (call it in the entity's confinement).
    func syncID(of entity: any SyncableEntity) -> String? {
        guard let id = entity.value(forKey: syncIdKey) as? String, !id.isEmpty else { return nil }
        return id
    }

    /// The entity's change date, if it has one (call it in the entity's confinement).
    func changeDate(of entity: any SyncableEntity) -> Date? {
        entity.value(forKey: changeDateKey) as? Date
    }
}
