public import StratusStore
public import StratusSync

/// How one `StratusStore` entity syncs: its record type, which attributes go to which record
/// fields, and which relationships become references.
///
/// Declare one type per entity (an `enum` without cases is enough) and hand them to ``StoreSync``;
/// the store's model is checked against them when the ``StoreSync`` is made. The sync ID and
/// change-date attributes (`syncID`, `syncModified` by default, or ``syncIdKey`` and
/// ``changeDateKey``, which may also be declared `String?`: `OptionalSyncKeys`) are not listed here. A ``SyncableManagedObject`` is a mapping too.
///
/// ```swift
/// import StratusStoreSync
///
/// enum NoteSync: StoreEntityMapping {
///     static let entityName = "Note"
///     static let attributes = ["title": "title", "body": "text"]
///     static let toOne = ["folder": StoreRelationshipMapping(field: "folder", target: FolderSync.self)]
///     static let toMany = ["tags": StoreRelationshipMapping(field: "tags", target: TagSync.self)]
/// }
///
/// enum FolderSync: StoreEntityMapping {
///     static let entityName = "Folder"
///     static let attributes = ["name": "name"]
/// }
///
/// enum TagSync: StoreEntityMapping {
///     static let entityName = "Tag"
///     static let attributes = ["label": "label"]
/// }
/// ```
public protocol StoreEntityMapping: SyncableEntityType, OptionalSyncKeys {
    /// The entity's name in the store's model.
    static var entityName: String { get }
    /// The record type; the entity's name by default.
    static var recordType: String { get }
    /// Attribute name → record field.
    static var attributes: [String: String] { get }
    /// To-one relationships: relationship name → the reference field and the target's mapping.
    static var toOne: [String: StoreRelationshipMapping] { get }
    /// To-many relationships: relationship name → the reference-list field and the target's mapping.
    static var toMany: [String: StoreRelationshipMapping] { get }
    /// The string attribute holding the record name; `""` (the default) uses the configuration's.
    static var syncIdKey: String { get }
    /// The date attribute holding the server's modification date; `""` (the default) uses the configuration's.
    static var changeDateKey: String { get }
    /// Whether objects of this entity are owned by whatever refers to them (`isWeak` of the sync
    /// framework): deleting the referrer deletes them on every device.
    static var isWeak: Bool { get }
    /// The object shown in place of an empty or missing reference to this entity, so a required
    /// relationship is never `nil`: fetch it, or insert it, in `context` (sync's own context; it saves
    /// it). It is never uploaded, and a reference to it is saved as empty. `nil` (the default): none.
    ///
    /// - Parameter context: Sync's writing context, on its queue.
    /// - Returns: The placeholder object.
    /// - Throws: A fetch error.
    static func referencePlaceholder(in context: ObjectContext) throws -> ManagedObject?
}

extension StoreEntityMapping {
    /// The entity's name.
    public static var recordType: String { entityName }
    /// None.
    public static var toOne: [String: StoreRelationshipMapping] { [:] }
    /// None.
    public static var toMany: [String: StoreRelationshipMapping] { [:] }
    /// The configuration's.
    public static var syncIdKey: String { "" }
    /// The configuration's.
    public static var changeDateKey: String { "" }
    /// Not weak.
    public static var isWeak: Bool { false }
    /// None.
    public static func referencePlaceholder(in context: ObjectContext) throws -> ManagedObject? { nil }

    /// The sync framework's entity type for this mapping.
    static var objectType: any AnyStoreObject.Type { StoreObject<Self>.self }

    /// Every local key that syncs: attributes and relationships.
    static var syncedKeys: Set<String> {
        Set(attributes.keys).union(toOne.keys).union(toMany.keys)
    }
}

/// A relationship that syncs as a reference (to-one) or a list of references (to-many).
public struct StoreRelationshipMapping: Sendable {
    /// The record field.
    public var field: String
    /// The mapping of the entity at the other end (it must be synced too).
    public var target: any StoreEntityMapping.Type

    /// Describes a relationship's field and target.
    ///
    /// ```swift
    /// import StratusStoreSync
    ///
    /// enum FolderSync: StoreEntityMapping {
    ///     static let entityName = "Folder"
    ///     static let attributes = ["name": "name"]
    /// }
    ///
    /// let folder = StoreRelationshipMapping(field: "folder", target: FolderSync.self)
    /// ```
    ///
    /// - Parameters:
    ///   - field: The record field.
    ///   - target: The mapping of the destination entity.
    public init(field: String, target: any StoreEntityMapping.Type) {
        self.field = field
        self.target = target
    }
}
