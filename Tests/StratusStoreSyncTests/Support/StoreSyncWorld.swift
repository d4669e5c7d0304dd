import Foundation
import StratusClient
import StratusLogging
import StratusStore
import StratusStoreSync
import StratusSync
import StratusTesting
import StratusWire
import Testing

/// Folders, notes and tags, each with the two attributes sync needs.
enum NotesModel {
    /// The model; `folderCascades` makes deleting a folder delete its notes.
    static func make(folderCascades: Bool = false) throws -> ObjectModel {
        let syncAttributes = StoreSync.syncAttributes()
        return try ObjectModel(
            version: "1",
            entities: [
                EntityDescription(
                    "Folder", attributes: [AttributeDescription("name", .string)] + syncAttributes,
                    relationships: [
                        .toMany("notes", destination: "Note", inverse: "folder", deleteRule: folderCascades ? .cascade : .nullify)
                    ]),
                EntityDescription(
                    "Note",
                    attributes: [
                        AttributeDescription("title", .string), AttributeDescription("body", .string, isOptional: true),
                        AttributeDescription("rank", .integer32, isOptional: true), AttributeDescription("pinned", .boolean, isOptional: true),
                    ] + syncAttributes,
                    relationships: [
                        .toOne("folder", destination: "Folder", inverse: "notes"), .toMany("tags", destination: "Tag", inverse: "notes"),
                    ]),
                EntityDescription(
                    "Tag", attributes: [AttributeDescription("label", .string)] + syncAttributes,
                    relationships: [.toMany("notes", destination: "Note", inverse: "tags")]),
            ])
    }
}

enum FolderSync: StoreEntityMapping {
    static let entityName = "Folder"
    static let attributes = ["name": "name"]
}

enum NoteSync: StoreEntityMapping {
    static let entityName = "Note"
    static let attributes = ["title": "title", "body": "text", "rank": "rank", "pinned": "pinned"]
    static var toOne: [String: StoreRelationshipMapping] { ["folder": StoreRelationshipMapping(field: "folder", target: FolderSync.self)] }
    static var toMany: [String: StoreRelationshipMapping] { ["tags": StoreRelationshipMapping(field: "tags", target: TagSync.self)] }
}

enum TagSync: StoreEntityMapping {
    static let entityName = "Tag"
    static let attributes = ["label": "label"]
}

extension ObjectContext {
    /// Inserts a folder holding one note per title.
    func insertFolder(_ name: String, notes titles: [String]) {
        let folder = insert(entity: "Folder")
        folder.setValue(name, forKey: "name")
        for title in titles {
            let note = insert(entity: "Note")
            note.setValue(title, forKey: "title")
            note.setValue(folder, forKey: "folder")
        }
    }
}

/// One simulated device: its own StratusStore file, sync bookkeeping and network switch.
struct StoreDevice {
    let name: String
    let store: PersistentContainer
    let sync: StoreSync
    let network: SwitchableTransport
    /// How the device was made (``StoreSyncWorld/relaunch(_:)`` makes it again on the same files).
    let options: StoreDeviceOptions

    /// Runs `body` in a new background context as the app and saves it to disk.
    func edit<Result: Sendable>(_ body: @escaping @Sendable (ObjectContext) throws -> Result) async throws -> Result {
        try await store.appEdit(body)
    }

    /// Reads the store in a fresh background context.
    func read<Result: Sendable>(_ body: @escaping @Sendable (ObjectContext) throws -> Result) async throws -> Result {
        try await store.newBackgroundContext(parent: .rootContext).perform(body)
    }

    /// The notes' titles, sorted.
    func titles() async throws -> [String] {
        try await read { context in
            try context.fetch(FetchRequest(entityName: "Note")).compactMap { $0.value(forKey: "title") as? String }.sorted()
        }
    }
}

extension PersistentContainer {
    /// Runs `body` in a new background context as the app (author `app`) and saves it to disk.
    ///
    /// - Parameters:
    ///   - parent: The context's parent: the view context (saved on through it) or the root.
    ///   - mergePolicy: How a save meets a change saved meanwhile.
    func appEdit<Result: Sendable>(
        parent: PersistentContainer.BackgroundParent = .viewContext, mergePolicy: MergePolicy = .error,
        _ body: @escaping @Sendable (ObjectContext) throws -> Result
    ) async throws -> Result {
        let context = newBackgroundContext(parent: parent)
        context.mergePolicy = mergePolicy
        context.transactionAuthor = "app"
        let result = try await context.perform { context in
            let result = try body(context)
            try context.save()
            return result
        }
        try await context.saveChain()
        return result
    }
}

/// How ``StoreSyncWorld/device(_:options:)`` makes a device.
struct StoreDeviceOptions: Sendable {
    /// Whether deleting a folder deletes its notes.
    var folderCascades = false
    /// The conflict policy.
    var policy: ConflictPolicy = .threeWayMerge
    /// Whether the network is off when the device starts.
    var offline = false
    /// What carries the device's requests under its network switch; the suite's shared pool by default.
    var network: (any HTTPTransport)?
}

/// A real server on loopback and StratusStore devices syncing through it.
final class StoreSyncWorld: Sendable {
    /// One connection pool for every simulated device of the suite.
    static let sharedTransport = DefaultTransport.make()
    let server: TestCloudKitServer
    let directory: TemporaryDirectory

    private init(server: TestCloudKitServer, directory: TemporaryDirectory) {
        self.server = server
        self.directory = directory
    }

    static func run(_ body: (StoreSyncWorld) async throws -> Void) async throws {
        try await TestCloudKitServer.withServer(directoryPrefix: "stratus-storesync") { server, directory in
            try await body(StoreSyncWorld(server: server, directory: directory))
        }
    }

    func device(_ name: String, folderCascades: Bool = false) async throws -> StoreDevice {
        var options = StoreDeviceOptions()
        options.folderCascades = folderCascades
        return try await device(name, options: options)
    }

    /// The device's clock: the server's manual clock (history timestamps and edit times on one timeline).
    var clock: @Sendable () -> Date { server.deviceClock }

    /// A device with its own store file, bookkeeping and network switch, as `options` say.
    func device(_ name: String, options: StoreDeviceOptions) async throws -> StoreDevice {
        let model = try NotesModel.make(folderCascades: options.folderCascades)
        let store = PersistentContainer(
            name: name, model: model, url: directory.url.appendingPathComponent("\(name).store"), now: clock)
        try await store.loadPersistentStores()
        let network = SwitchableTransport(options.network ?? StoreSyncWorld.sharedTransport)
        network.isOffline = options.offline
        let container = server.deviceContainer(transport: network)
        var configuration = SyncConfiguration(
            container: container, entityTypes: [], deviceID: "device-\(name)", bookkeepingPath: directory.path("\(name).sync.sqlite"),
            conflictPolicy: options.policy, now: clock, logger: Self.logger(name))
        configuration.reconnectInterval = nil
        let sync = try StoreSync(store: store, entities: [FolderSync.self, NoteSync.self, TagSync.self], configuration: configuration)
        return StoreDevice(name: name, store: store, sync: sync, network: network, options: options)
    }

    /// A device's sync logger: none, or with `STORESYNC_LOG=1` its debug journal on standard error.
    static func logger(_ name: String) -> Logger {
        guard ProcessInfo.processInfo.environment["STORESYNC_LOG"] == "1" else { return .disabled }
        return Logger(label: name, level: .debug, handler: StreamLogHandler(format: .text))
    }

    /// Ends a device as a quitting app does (sync stopped, store closed) and launches it again on
    /// the same store and bookkeeping files, online or not.
    func relaunch(_ device: StoreDevice, offline: Bool = false) async throws -> StoreDevice {
        try await device.sync.stop()
        try device.store.close()
        var options = device.options
        options.offline = offline
        return try await self.device(device.name, options: options)
    }
}
