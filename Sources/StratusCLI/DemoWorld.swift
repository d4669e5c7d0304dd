import Foundation
import StratusClient
import StratusCrypto
import StratusHTTPServer
import StratusLogging
import StratusMetrics
import StratusServer
import StratusServerSQLite
import StratusStore
import StratusStoreSync
import StratusSync
import StratusWire

/// The demo's model: folders and notes, each with the two attributes sync needs.
enum DemoModel {
    static func make() throws -> ObjectModel {
        let sync = StoreSync.syncAttributes()
        return try ObjectModel(
            version: "1",
            entities: [
                EntityDescription(
                    "Folder", attributes: [AttributeDescription("name", .string)] + sync,
                    relationships: [.toMany("notes", destination: "Note", inverse: "folder")]),
                EntityDescription(
                    "Note", attributes: [AttributeDescription("title", .string), AttributeDescription("body", .string, isOptional: true)] + sync,
                    relationships: [.toOne("folder", destination: "Folder", inverse: "notes")]),
            ])
    }
}

enum DemoFolder: StoreEntityMapping {
    static let entityName = "Folder"
    static let attributes = ["name": "name"]
}

enum DemoNote: StoreEntityMapping {
    static let entityName = "Note"
    static let attributes = ["title": "title", "body": "body"]
    static var toOne: [String: StoreRelationshipMapping] { ["folder": StoreRelationshipMapping(field: "folder", target: DemoFolder.self)] }
}

/// A note as a device's store holds it.
struct DemoNoteValues: Sendable, Equatable {
    var title: String
    var body: String?
    var folder: String?
}

/// One simulated device: a local store of its own, sync, and a network switch.
struct DemoDevice {
    let name: String
    let store: PersistentContainer
    let sync: StoreSync
    let network: SwitchableTransport

    /// Changes the store the way an app does (a background context saved to disk).
    func edit(_ body: @escaping @Sendable (ObjectContext) throws -> Void) async throws {
        let context = store.newBackgroundContext()
        context.transactionAuthor = "app"
        // The user's edit wins property by property over what sync merged into the view context meanwhile
        // (a pushed change landing between this context's fetch and its save), as an app would set it.
        context.mergePolicy = .objectTrump
        try await context.perform { context in
            try body(context)
            try context.save()
        }
        try await context.saveChain()
    }

    /// The notes in the store, by title.
    func notes() async throws -> [DemoNoteValues] {
        try await Self.notes(in: store)
    }

    /// The notes in a store, by title.
    static func notes(in store: PersistentContainer) async throws -> [DemoNoteValues] {
        try await store.newBackgroundContext(parent: .rootContext).perform { context in
            try context.fetch(FetchRequest(entityName: "Note", sortDescriptors: [.ascending("title")])).map { note in
                DemoNoteValues(
                    title: note.value(forKey: "title") as? String ?? "", body: note.value(forKey: "body") as? String,
                    folder: (note.value(forKey: "folder") as? ManagedObject)?.value(forKey: "name") as? String)
            }
        }
    }

    /// How many changes wait in the outbox.
    func pending() async -> Int { await sync.controller.status.pendingCount }
}

/// An embedded server on loopback (ephemeral port, temporary directory) and two devices.
struct DemoWorld {
    static let container = "iCloud.com.example.Demo"

    let directory: URL
    let server: HTTPServer
    let service: CloudKitService
    let records: SQLiteRecordStore
    let baseURL: URL

    static func start() async throws -> DemoWorld {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-demo-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let records = try await SQLiteRecordStore.open(path: directory.appendingPathComponent("server.sqlite").path)
        _ = try await records.write { try $0.createContainer(container, createdAt: Int64(Date().timeIntervalSince1970 * 1000)) }
        var configuration = ServiceConfiguration(tokenSecret: try SecureRandom.bytes(count: 32))
        configuration.authentication.requiresAuthentication = false
        configuration.assets.directory = directory.appendingPathComponent("assets")
        configuration.quotas.defaults = .unlimited
        let service = CloudKitService(store: records, accounts: records, configuration: configuration, logger: .disabled)
        var http = HTTPServerConfiguration()
        http.host = "127.0.0.1"
        http.port = 0
        let router = ServerRoutes.makeRouter(logger: .disabled, metrics: MetricsRegistry(), service: service, readiness: ReadinessCheck(store: records))
        let server = HTTPServer(configuration: http, responder: router, logger: .disabled, metrics: MetricsRegistry())
        try server.start()
        let baseURL = URL(string: "http://127.0.0.1:\(server.port)")!
        return DemoWorld(directory: directory, server: server, service: service, records: records, baseURL: baseURL)
    }

    /// A device with its own store file and bookkeeping; pushes and reconnection retries are quick.
    func device(_ name: String) async throws -> DemoDevice {
        let store = PersistentContainer(name: name, model: try DemoModel.make(), url: directory.appendingPathComponent("\(name).store"))
        try await store.loadPersistentStores()
        // As a syncing app sets it: sync writes the root context at any time, and the view context's
        // automatic merge of those writes comes a moment later; a save in between would conflict
        // under the default `.error` (CI saw B's deletion refused so).
        store.viewContext.mergePolicy = .objectTrump
        let network = SwitchableTransport()
        var client = ClientConfiguration()
        client.requestTimeout = .seconds(10)
        client.retryPolicy.maximumAttempts = 1
        let cloud = Container(
            identifier: Self.container, environment: .development, serverURL: baseURL, authentication: .none, configuration: client,
            transport: network)
        var configuration = SyncConfiguration(
            container: cloud, entityTypes: [], deviceID: "demo-\(name)", bookkeepingPath: directory.appendingPathComponent("\(name).sync").path)
        configuration.reconnectInterval = .milliseconds(200)
        configuration.logger = .disabled  // the demo narrates; the sync journal would drown it
        configuration.sleep = { try await Task.sleep(for: min($0, .milliseconds(200))) }
        let sync = try StoreSync(store: store, entities: [DemoFolder.self, DemoNote.self], configuration: configuration)
        var notifications = NotificationConfiguration()
        notifications.transport = network
        notifications.backoff.initialBackoff = .milliseconds(50)
        notifications.backoff.maximumBackoff = .milliseconds(200)
        try await sync.start(notifications: notifications)
        // Let push's catch-up sync finish, so what arrives later arrives by push.
        let deadline = ContinuousClock.now + .seconds(10)
        while await sync.controller.status.lastSyncDate == nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        return DemoDevice(name: name, store: store, sync: sync, network: network)
    }

    func stop(_ devices: [DemoDevice]) async {
        for device in devices {
            try? await device.sync.stop()
            try? device.store.close()
        }
        await service.shutdown()
        await server.shutdown(gracePeriod: .milliseconds(200))
        try? await records.close()
        try? FileManager.default.removeItem(at: directory)
    }
}
