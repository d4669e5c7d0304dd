import Foundation
import StratusClient
import StratusLogging
import StratusStore
import StratusStoreSync
import StratusSync
import StratusWire

/// `stratus demo device …`: one launch of the demo's notes app against a running server, as an app
/// runs it — open the store, start sync, do one thing, stop sync, exit. Several devices are several
/// store directories; tests drive two of them as two real processes.
enum DemoDeviceCommand {
    static let usage = """
        Usage: stratus demo device --server URL --store DIR --device NAME [--container ID]
                                   [--network on|off] [--push on|off] [--request-timeout 10] ACTION [ARGUMENTS]

        One launch of the demo's notes app (folders and notes in a StratusStore file, synced by
        StratusStoreSync): opens the store in DIR (made if missing), starts sync, does ACTION, stops
        sync and exits. Run it again with the same DIR for the device's next launch.

        Actions:
          create TITLE [BODY]   insert a note
          edit TITLE BODY       set the body of the note titled TITLE
          sync                  sync, then print the status and the notes
          forced-sync           syncEntities(forced: true), then print the notes
          show                  print the notes as "title|body|folder" lines (sync does not start)

        --network off makes every request fail as with the radio off (changes wait in the outbox;
        starting sync fails and the launch goes on). --push on (the default) starts push like an app.
        The container is iCloud.com.example.Demo unless --container says otherwise.
        --request-timeout is each request's deadline in seconds (10; a slower build, such as a
        sanitizer's, needs more).
        """

    /// Runs one launch; returns the exit status.
    static func run(_ options: Options) async throws -> Int32 {
        let words = Array(options.positional.dropFirst())
        guard let action = words.first else { throw CLIError(usage) }
        let directory = URL(fileURLWithPath: options.string("store", default: ""), isDirectory: true)
        guard !directory.path.isEmpty, let server = URL(string: options.string("server", default: "")), server.scheme != nil else {
            throw CLIError("stratus demo device needs --server URL and --store DIR\n\n\(usage)")
        }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let store = PersistentContainer(name: "Notes", model: try DemoModel.make(), url: directory.appendingPathComponent("notes.store"))
        try await store.loadPersistentStores()
        defer { try? store.close() }
        if action == "show" {
            try await printNotes(store)
            return 0
        }
        let timeout = try options.integer("request-timeout", default: 10, in: 1...3600)
        let device = try makeDevice(options, store: store, server: server, directory: directory, timeout: timeout)
        do {
            try await device.sync.start(push: options.string("push", default: "on") != "off")
        } catch {
            print("start: \(error)")
        }
        do {
            try await perform(action, Array(words.dropFirst()), on: device)
        } catch {
            try? await device.sync.stop()
            throw error
        }
        try await device.sync.stop()
        return 0
    }

    /// The device: its sync bookkeeping in DIR, its network switch set by `--network`.
    private static func makeDevice(_ options: Options, store: PersistentContainer, server: URL, directory: URL, timeout: Int) throws -> DemoDevice {
        let network = SwitchableTransport()
        network.isOffline = options.string("network", default: "on") == "off"
        var client = ClientConfiguration()
        client.requestTimeout = .seconds(timeout)
        client.retryPolicy.maximumAttempts = 1
        let name = options.string("device", default: "A")
        let cloud = Container(
            identifier: options.string("container", default: DemoWorld.container), environment: .development, serverURL: server,
            authentication: .none, configuration: client, transport: network)
        var configuration = SyncConfiguration(
            container: cloud, entityTypes: [], deviceID: "demo-\(name)", bookkeepingPath: directory.appendingPathComponent("sync.sqlite").path)
        configuration.reconnectInterval = nil
        configuration.logger = .disabled  // the demo narrates; the sync journal would drown it
        let sync = try StoreSync(store: store, entities: [DemoFolder.self, DemoNote.self], configuration: configuration)
        return DemoDevice(name: name, store: store, sync: sync, network: network)
    }

    private static func perform(_ action: String, _ arguments: [String], on device: DemoDevice) async throws {
        switch (action, arguments.count) {
        case ("create", 1...2):
            try await device.edit { context in
                let note = context.insert(entity: "Note")
                note.setValue(arguments[0], forKey: "title")
                if arguments.count > 1 { note.setValue(arguments[1], forKey: "body") }
            }
            try await device.sync.captureLocalChanges()
        case ("edit", 2):
            try await device.edit { context in
                let notes = try context.fetch(FetchRequest(entityName: "Note")).filter { $0.value(forKey: "title") as? String == arguments[0] }
                guard let note = notes.first else { throw CLIError("no note titled '\(arguments[0])'") }
                note.setValue(arguments[1], forKey: "body")
            }
            try await device.sync.captureLocalChanges()
        case ("sync", 0):
            try await device.sync.sync()
            print("status: \(await device.sync.controller.status)")
            try await printNotes(device.store)
        case ("forced-sync", 0):
            try await device.sync.controller.syncEntities(forced: true)
            try await printNotes(device.store)
        default:
            throw CLIError("unknown action '\(([action] + arguments).joined(separator: " "))'\n\n\(usage)")
        }
    }

    private static func printNotes(_ store: PersistentContainer) async throws {
        for note in try await DemoDevice.notes(in: store) {
            print("\(note.title)|\(note.body ?? "")|\(note.folder ?? "")")
        }
    }
}
