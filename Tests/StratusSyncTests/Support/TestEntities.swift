import Foundation
import StratusWire
import StratusSync
import Synchronization

/// A plain Swift entity that keeps its properties in a locked dictionary (thread-safe, so it keeps
/// the default confinement, `anywhere`).
protocol MemoryEntity: SyncableEntity, Sendable {
    init()
    var storage: Mutex<[String: StoredValue]> { get }
}

/// A property value of a test entity.
// Safety: the values are plain values (String, Date, Int…) and other test entities, all Sendable;
// `Any` only because field access is untyped.
struct StoredValue: @unchecked Sendable {
    let value: Any
}

extension MemoryEntity {
    func value(forKey key: String) -> Any? { storage.withLock { $0[key]?.value } }
    func setValue(_ value: Any?, forKey key: String) {
        let stored = value.map(StoredValue.init)
        storage.withLock { $0[key] = stored }
    }

    var syncID: String? { value(forKey: "syncID") as? String }
    var modified: Date? { value(forKey: "modified") as? Date }
    subscript(key: String) -> Any? {
        get { value(forKey: key) }
        set { setValue(newValue, forKey: key) }
    }
}

final class Folder: MemoryEntity {
    let storage = Mutex<[String: StoredValue]>([:])
    static let recordType = "Folder"
    static let mapping = ["name": "name"]
    static var referenceLists: [ReferenceList] { [ReferenceList(entityType: Attachment.self, localKey: "attachments", remoteKey: "attachments")] }

    /// The folder a note without one shows ("Unfiled"); never uploaded.
    static let unfiled = make(Folder.self, ["name": "Unfiled"])
    static var referencePlaceholder: (any SyncableEntity)? { unfiled }

    var name: String? { value(forKey: "name") as? String }
    var attachments: [Attachment] { (value(forKey: "attachments") as? [any SyncableEntity] ?? []).compactMap { $0 as? Attachment } }
}

final class Note: MemoryEntity {
    let storage = Mutex<[String: StoredValue]>([:])
    static let recordType = "Note"
    static let mapping = ["title": "title", "body": "text", "rank": "rank"]
    static let references = ["folder": "folder"]
    static var referenceTypes: [String: any SyncableEntity.Type] { ["folder": Folder.self] }
    static var referenceLists: [ReferenceList] { [ReferenceList(entityType: Tag.self, localKey: "tags", remoteKey: "tags")] }

    var title: String? { value(forKey: "title") as? String }
    var body: String? { value(forKey: "body") as? String }
    var folder: Folder? { value(forKey: "folder") as? Folder }
    var tags: [Tag] { (value(forKey: "tags") as? [any SyncableEntity] ?? []).compactMap { $0 as? Tag } }
}

final class Tag: MemoryEntity {
    let storage = Mutex<[String: StoredValue]>([:])
    static let recordType = "Tag"
    static let mapping = ["name": "name"]
    var name: String? { value(forKey: "name") as? String }
}

/// Owned by the folder that lists it: deleting the folder deletes it everywhere.
final class Attachment: MemoryEntity {
    let storage = Mutex<[String: StoredValue]>([:])
    static let recordType = "Attachment"
    static let mapping = ["fileName": "fileName"]
    static var isWeak: Bool { true }
    var fileName: String? { value(forKey: "fileName") as? String }
}

/// A type with no keys of its own, to check the setup error.
final class Orphan: MemoryEntity {
    let storage = Mutex<[String: StoredValue]>([:])
    static let recordType = "Orphan"
    static let mapping = ["a": "a"]
}

/// Makes an entity with properties.
func make<E: MemoryEntity>(_ type: E.Type, _ values: [String: any Sendable]) -> E {
    let entity = E()
    for (key, value) in values { entity.setValue(value, forKey: key) }
    return entity
}
