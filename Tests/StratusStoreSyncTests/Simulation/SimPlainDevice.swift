import Foundation
import StratusClient
import StratusSync
import Synchronization

/// A plain Swift entity keeping its properties in a locked dictionary.
class SimEntity: @unchecked Sendable {
    // Safety: every property lives in `storage`, read and written only under `lock`.
    private let lock = NSLock()
    private var storage: [String: Any] = [:]
    required init() {}

    func value(forKey key: String) -> Any? { lock.withLock { storage[key] } }
    func setValue(_ value: Any?, forKey key: String) { lock.withLock { storage[key] = value } }
    var syncID: String? { value(forKey: "syncID") as? String }
}

/// A folder, the same record type as StoreSync's `Folder`.
// Safety: as ``SimEntity``.
final class PlainFolder: SimEntity, SyncableEntity, @unchecked Sendable {
    static let recordType = "Folder"
    static let mapping = ["name": "name"]
    var name: String? { value(forKey: "name") as? String }
}

/// A note, the same record type and fields as StoreSync's `Note` (its tags and pin left alone).
// Safety: as ``SimEntity``.
final class PlainNote: SimEntity, SyncableEntity, @unchecked Sendable {
    static let recordType = "Note"
    static let mapping = ["title": "title", "body": "text", "rank": "rank"]
    static let references = ["folder": "folder"]
    static var referenceTypes: [String: any SyncableEntity.Type] { ["folder": PlainFolder.self] }
    var title: String? { value(forKey: "title") as? String }
}

/// The app side of a plain device: its entities in memory (the app's own persistence, which
/// outlives a relaunch of sync), applying what sync delivers.
final class PlainStore: SyncDelegate {
    let entities = Mutex<[SimEntity]>([])

    func all<E: SimEntity>(_ type: E.Type) -> [E] { entities.withLock { $0.compactMap { $0 as? E } } }

    func allEntities(ofType type: any SyncableEntity.Type) async throws -> [any SyncableEntity] {
        entities.withLock { $0.compactMap { $0 as? any SyncableEntity }.filter { Swift.type(of: $0) == type } }
    }

    func createEntity(ofType type: any SyncableEntity.Type) async throws -> any SyncableEntity {
        if type == PlainFolder.self {
            let folder = PlainFolder()
            entities.withLock { $0.append(folder) }
            return folder
        }
        let note = PlainNote()
        entities.withLock { $0.append(note) }
        return note
    }

    func entity(ofType type: any SyncableEntity.Type, syncID: String) async throws -> (any SyncableEntity)? {
        entities.withLock { $0.first { Swift.type(of: $0) == type && $0.syncID == syncID } as? any SyncableEntity }
    }

    func syncController(_ controller: SyncController, didFinishSync changes: SyncChanges, finishSync: FinishSync) async {
        let gone = Set(changes.deleted.map(\.syncID))
        entities.withLock { $0.removeAll { $0.syncID.map(gone.contains) == true } }
        try? await finishSync()
    }
}

/// A device whose app keeps plain Swift entities and syncs them with a ``SyncController``.
final class SimPlainDevice: SimDevice {
    let name: String
    let network: SimNetwork
    private let configuration: SyncConfiguration
    private let store = PlainStore()
    private var controller: SyncController

    init(name: String, network: SimNetwork, directory: URL, clock: @escaping @Sendable () -> Date, zoneName: String) async throws {
        self.name = name
        self.network = network
        var configuration = SimWorld.syncConfiguration(
            name: name, network: network, directory: directory, clock: clock, zoneName: zoneName, entityTypes: [PlainFolder.self, PlainNote.self])
        configuration.syncIdKey = "syncID"
        configuration.changeDateKey = "modified"
        self.configuration = configuration
        controller = try SyncController(configuration: configuration, delegate: store)
        _ = try? await controller.sync()
    }

    private func folderNamed(_ name: String?) -> PlainFolder? {
        guard let name else { return nil }
        return store.all(PlainFolder.self).first { $0.name == name }
    }

    func notes() async throws -> [SimNote] {
        let folders = store.all(PlainFolder.self)
        return store.all(PlainNote.self).map { note in
            let folder = (note.value(forKey: "folder") as? PlainFolder).flatMap { held in folders.contains { $0 === held } ? held.name : nil }
            return SimNote(
                title: note.title ?? "?",
                values: NoteValues(body: note.value(forKey: "body") as? String, rank: note.value(forKey: "rank") as? Int, folder: folder))
        }.sorted()
    }

    func folders() async throws -> [String] { store.all(PlainFolder.self).compactMap(\.name).sorted() }

    /// Saves an entity as the app does; a failure leaves it queued (the outbox replays it).
    private func save(_ entity: any SyncableEntity, keys: Set<String>? = nil) async {
        if let keys { _ = try? await controller.cloud(entity).save(keys: keys) } else { _ = try? await controller.cloud(entity).save() }
    }

    func createNote(_ title: String, _ values: NoteValues) async throws {
        let note = PlainNote()
        note.setValue(title, forKey: "title")
        note.setValue(values.body, forKey: "body")
        note.setValue(values.rank, forKey: "rank")
        note.setValue(folderNamed(values.folder), forKey: "folder")
        store.entities.withLock { $0.append(note) }
        await save(note)
    }

    func edit(_ title: String, _ field: NoteValues.Field, to values: NoteValues) async throws {
        for note in store.all(PlainNote.self) where note.title == title {
            switch field {
            case .body: note.setValue(values.body, forKey: "body")
            case .rank: note.setValue(values.rank, forKey: "rank")
            case .folder: note.setValue(folderNamed(values.folder), forKey: "folder")
            }
            await save(note, keys: [field == .body ? "body" : field == .rank ? "rank" : "folder"])
        }
    }

    func deleteNote(_ title: String) async throws {
        for note in store.all(PlainNote.self) where note.title == title {
            store.entities.withLock { $0.removeAll { $0 === note } }
            try? await controller.cloud(note).delete()
        }
    }

    func createFolder(_ name: String) async throws {
        let folder = PlainFolder()
        folder.setValue(name, forKey: "name")
        store.entities.withLock { $0.append(folder) }
        await save(folder)
    }

    func deleteFolder(_ name: String) async throws -> [String] {
        guard let folder = folderNamed(name) else { return [] }
        let held = store.all(PlainNote.self).filter { $0.value(forKey: "folder") as? PlainFolder === folder }
        for note in held {
            store.entities.withLock { $0.removeAll { $0 === note } }
            try? await controller.cloud(note).delete()
        }
        store.entities.withLock { $0.removeAll { $0 === folder } }
        try? await controller.cloud(folder).delete()
        return held.compactMap(\.title)
    }

    func sync() async throws { _ = try await controller.sync() }

    func forcedSync() async throws { _ = try await controller.syncEntities(forced: true) }

    func settle() async throws { await controller.waitForIdle() }

    func relaunch() async throws {
        try await controller.close()
        controller = try SyncController(configuration: configuration, delegate: store)
        _ = try await controller.sync()
    }

    func pendingCount() async -> Int { await controller.status.pendingCount }

    func quit() async throws { try await controller.close() }
}
