import Foundation
import StratusClient
import StratusStore
import StratusStoreSync
import StratusSync
import StratusTesting

/// A note as a device or the server holds it: its title (unique: it names the note) and values.
struct SimNote: Hashable, Sendable, Comparable, CustomStringConvertible {
    var title: String
    var values: NoteValues

    static func < (lhs: SimNote, rhs: SimNote) -> Bool { lhs.title < rhs.title }
    var description: String { "\(title)=\(values)" }
}

/// What the simulator sees of any device: its notes and folders, edits made as the app makes
/// them, syncs and relaunches. ``SimStoreDevice`` is StratusStore + StratusStoreSync;
/// ``SimPlainDevice`` is plain StratusSync entities behind a delegate.
protocol SimDevice: AnyObject {
    var name: String { get }
    var network: SimNetwork { get }
    /// Every note, duplicates included, sorted by title.
    func notes() async throws -> [SimNote]
    /// Every folder name, duplicates included, sorted.
    func folders() async throws -> [String]
    func createNote(_ title: String, _ values: NoteValues) async throws
    /// Sets `field` of the note `title` to `values`' value of it.
    func edit(_ title: String, _ field: NoteValues.Field, to values: NoteValues) async throws
    func deleteNote(_ title: String) async throws
    func createFolder(_ name: String) async throws
    /// Deletes the folder and, as the app's cascade, the notes in it; returns their titles.
    func deleteFolder(_ name: String) async throws -> [String]
    func sync() async throws
    func forcedSync() async throws
    /// Waits for what the last change set off (capture, upload).
    func settle() async throws
    /// Quits and launches again on the same files (a launch on a dead network throws).
    func relaunch() async throws
    /// Changes still waiting for upload.
    func pendingCount() async -> Int
    func quit() async throws
}

/// A StratusStore device: a real store file, StoreSync and its bookkeeping file, behind a
/// ``SimNetwork``, with a clock `skew` milliseconds off the server's.
final class SimStoreDevice: SimDevice {
    let name: String
    let network: SimNetwork
    private let directory: URL
    private let clock: @Sendable () -> Date
    private let zoneName: String
    private var store: PersistentContainer
    private var storeSync: StoreSync

    private init(
        name: String, network: SimNetwork, directory: URL, clock: @escaping @Sendable () -> Date, zoneName: String, opened: (PersistentContainer, StoreSync)
    ) {
        self.name = name
        self.network = network
        self.directory = directory
        self.clock = clock
        self.zoneName = zoneName
        (store, storeSync) = opened
    }

    static func launch(
        name: String, network: SimNetwork, directory: URL, clock: @escaping @Sendable () -> Date, zoneName: String
    ) async throws -> SimStoreDevice {
        let opened = try await open(name: name, network: network, directory: directory, clock: clock, zoneName: zoneName)
        let device = SimStoreDevice(name: name, network: network, directory: directory, clock: clock, zoneName: zoneName, opened: opened)
        try? await device.storeSync.start(push: false)
        return device
    }

    private static func open(
        name: String, network: SimNetwork, directory: URL, clock: @escaping @Sendable () -> Date, zoneName: String
    ) async throws -> (PersistentContainer, StoreSync) {
        let store = PersistentContainer(
            name: name, model: try NotesModel.make(folderCascades: true), url: directory.appendingPathComponent("\(name).store"), now: clock)
        try await store.loadPersistentStores()
        let configuration = SimWorld.syncConfiguration(name: name, network: network, directory: directory, clock: clock, zoneName: zoneName)
        let sync = try StoreSync(store: store, entities: [FolderSync.self, NoteSync.self, TagSync.self], configuration: configuration)
        return (store, sync)
    }

    func notes() async throws -> [SimNote] {
        try await store.newBackgroundContext(parent: .rootContext).perform { context in
            try context.fetch(FetchRequest(entityName: "Note")).map { note in
                SimNote(
                    title: note.value(forKey: "title") as? String ?? "?",
                    values: NoteValues(
                        body: note.value(forKey: "body") as? String, rank: (note.value(forKey: "rank") as? Int32).map(Int.init),
                        folder: (note.value(forKey: "folder") as? ManagedObject)?.value(forKey: "name") as? String))
            }.sorted()
        }
    }

    func folders() async throws -> [String] {
        try await store.newBackgroundContext(parent: .rootContext).perform { context in
            try context.fetch(FetchRequest(entityName: "Folder")).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
    }

    private func change(_ body: @escaping @Sendable (ObjectContext) throws -> Void) async throws {
        try await store.appEdit(parent: .rootContext, mergePolicy: .objectTrump, body)
    }

    private static func folder(_ name: String?, in context: ObjectContext) throws -> ManagedObject? {
        guard let name else { return nil }
        return try context.fetch(FetchRequest(entityName: "Folder")).first { $0.value(forKey: "name") as? String == name }
    }

    private static func note(_ title: String, in context: ObjectContext) throws -> [ManagedObject] {
        try context.fetch(FetchRequest(entityName: "Note")).filter { $0.value(forKey: "title") as? String == title }
    }

    func createNote(_ title: String, _ values: NoteValues) async throws {
        try await change { context in
            let note = context.insert(entity: "Note")
            note.setValue(title, forKey: "title")
            note.setValue(values.body, forKey: "body")
            note.setValue(values.rank.map { Int32($0) }, forKey: "rank")
            note.setValue(try Self.folder(values.folder, in: context), forKey: "folder")
        }
    }

    func edit(_ title: String, _ field: NoteValues.Field, to values: NoteValues) async throws {
        try await change { context in
            for note in try Self.note(title, in: context) {
                switch field {
                case .body: note.setValue(values.body, forKey: "body")
                case .rank: note.setValue(values.rank.map { Int32($0) }, forKey: "rank")
                case .folder: note.setValue(try Self.folder(values.folder, in: context), forKey: "folder")
                }
            }
        }
    }

    func deleteNote(_ title: String) async throws {
        try await change { context in
            for note in try Self.note(title, in: context) { context.delete(note) }
        }
    }

    func createFolder(_ name: String) async throws {
        try await change { context in context.insert(entity: "Folder").setValue(name, forKey: "name") }
    }

    func deleteFolder(_ name: String) async throws -> [String] {
        let held = try await notes().filter { $0.values.folder == name }.map(\.title)
        try await change { context in
            if let folder = try Self.folder(name, in: context) { context.delete(folder) }
        }
        return held
    }

    func sync() async throws { try await storeSync.sync() }

    func forcedSync() async throws {
        try await storeSync.captureLocalChanges()
        _ = try await storeSync.controller.syncEntities(forced: true)
        try await storeSync.waitForIdle()
    }

    func settle() async throws { try await storeSync.waitForIdle() }

    func relaunch() async throws {
        try await storeSync.stop()
        try store.close()
        (store, storeSync) = try await Self.open(name: name, network: network, directory: directory, clock: clock, zoneName: zoneName)
        try await storeSync.start(push: false)
    }

    func pendingCount() async -> Int { await storeSync.controller.status.pendingCount }

    func quit() async throws {
        try await storeSync.stop()
        try store.close()
    }
}
