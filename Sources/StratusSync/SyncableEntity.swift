import Foundation

/// Field access by name, the way the sync framework reads and writes an entity.
///
/// `StratusStore` objects and plain Swift classes can provide it; values are Swift values
/// (`String`, `Int`, `Int64`, `Double`, `Bool`, `Date`, `Data`, arrays of those), another
/// ``SyncableEntity`` for a to-one reference, and `[any SyncableEntity]` for a to-many one.
///
/// ```swift
/// final class Note: SyncableEntity {
///     private let storage = Mutex<[String: any Sendable]>([:])
///     func value(forKey key: String) -> (any Sendable)? { storage.withLock { $0[key] } }
///     func setValue(_ value: (any Sendable)?, forKey key: String) { storage.withLock { $0[key] = value } }
///     static let recordType = "Note"
///     static let mapping = ["title": "title", "body": "text"]
/// }
/// ```
public protocol SyncFieldAccess: AnyObject {
    /// The value of a property; `nil` when it has none.
    ///
    /// - Parameter key: The local property name.
    /// - Returns: The value.
    func value(forKey key: String) -> (any Sendable)?

    /// Sets a property; `nil` clears it.
    ///
    /// - Parameters:
    ///   - value: The new value.
    ///   - key: The local property name.
    func setValue(_ value: (any Sendable)?, forKey key: String)
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

/// An entity that syncs as records of one type.
///
/// Only ``recordType`` and ``mapping`` are required. ``syncIdKey`` and ``changeDateKey`` fall back to
/// the controller's global defaults; a setup where a type has neither fails with
/// ``SyncError/Code/missingKey`` naming the type.
public protocol SyncableEntity: SyncFieldAccess, Sendable {
    /// The record type, such as `"Note"`.
    static var recordType: String { get }
    /// Local property → record field, for plain values (not references).
    static var mapping: [String: String] { get }
    /// The local property that stores the record name; `nil` uses the global default.
    static var syncIdKey: String? { get }
    /// The local property that stores the server's modification date; `nil` uses the global default.
    static var changeDateKey: String? { get }
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
    /// relationship is never `nil`.
    static var referencePlaceholder: (any SyncableEntity)? { get }
}

extension SyncableEntity {
    /// No per-type key: the global default applies.
    public static var syncIdKey: String? { nil }
    /// No per-type key: the global default applies.
    public static var changeDateKey: String? { nil }
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
    /// try await note.cloud.save()
    /// ```
    public var cloud: CloudProxy { CloudProxy(entity: self, controller: SyncController.current) }
}

/// The resolved keys of one entity type, checked once at setup.
struct EntityDescription: Sendable {
    let type: any SyncableEntity.Type
    let recordType: String
    let syncIdKey: String
    let changeDateKey: String
    /// Plain fields, local → remote, without ignored keys.
    let mapping: [String: String]
    let references: [String: String]
    let referenceTypes: [String: any SyncableEntity.Type]
    let referenceLists: [ReferenceList]

    /// Every remote field this type writes (mapped fields and references).
    var remoteKeys: Set<String> {
        Set(mapping.values).union(references.values).union(referenceLists.map(\.remoteKey))
    }

    init(type: any SyncableEntity.Type, globalSyncIdKey: String?, globalChangeDateKey: String?, ignoreKeys: Set<String>) throws(SyncError) {
        guard let syncIdKey = type.syncIdKey ?? globalSyncIdKey else {
            throw SyncError(.missingKey, "entity type '\(type)' (record type '\(type.recordType)') has no syncIdKey and no global default is set")
        }
        guard let changeDateKey = type.changeDateKey ?? globalChangeDateKey else {
            throw SyncError(
                .missingKey, "entity type '\(type)' (record type '\(type.recordType)') has no changeDateKey and no global default is set")
        }
        self.type = type
        self.recordType = type.recordType
        self.syncIdKey = syncIdKey
        self.changeDateKey = changeDateKey
        self.mapping = type.mapping.filter { !ignoreKeys.contains($0.key) }
        self.references = type.references.filter { !ignoreKeys.contains($0.key) }
        self.referenceTypes = type.referenceTypes
        self.referenceLists = type.referenceLists.filter { !ignoreKeys.contains($0.localKey) }
    }

    /// The entity's record name, if it has one.
    func syncID(of entity: any SyncableEntity) -> String? {
        guard let id = entity.value(forKey: syncIdKey) as? String, !id.isEmpty else { return nil }
        return id
    }
}
