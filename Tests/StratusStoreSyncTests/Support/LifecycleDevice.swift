import Foundation
import StratusClient
import StratusLogging
import StratusStore
import StratusStoreSync
import StratusSync
import StratusTesting
import StratusWire
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport that makes the process "die" at its n-th request: the calling task is cancelled and
/// every request from then on fails, as if the network went with the process. Before or after the
/// server answered, so both "never sent" and "applied, answer lost" happen.
final class CrashTransport: HTTPTransport {
    enum Moment: Sendable { case beforeSending, afterAnswer }

    private let inner: any HTTPTransport
    private let state = Mutex<(countdown: Int?, moment: Moment, dead: Bool)>((nil, .beforeSending, false))

    init(_ inner: any HTTPTransport) { self.inner = inner }

    /// Dies at the `request`-th request from now (1 is the next one).
    func arm(at request: Int, _ moment: Moment) { state.withLock { $0 = (request, moment, false) } }

    var isDead: Bool { state.withLock { $0.dead } }

    private enum Verdict { case pass, dead, dieBefore, dieAfterAnswer }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let verdict = state.withLock { state -> Verdict in
            if state.dead { return .dead }
            guard let countdown = state.countdown else { return .pass }
            state.countdown = countdown - 1
            guard countdown == 1 else { return .pass }
            state.dead = true
            return state.moment == .afterAnswer ? .dieAfterAnswer : .dieBefore
        }
        switch verdict {
        case .pass:
            return try await inner.send(request)
        case .dead:
            throw URLError(.networkConnectionLost)
        case .dieBefore, .dieAfterAnswer:
            if verdict == .dieAfterAnswer { _ = try? await inner.send(request) }
            withUnsafeCurrentTask { $0?.cancel() }
            throw URLError(.networkConnectionLost)
        }
    }
}

/// One device of a property run: a real store file, `StoreSync` and bookkeeping, a network switch,
/// a crash switch, and the model of what it did.
final class LifecycleDevice {
    let name: String
    let directory: URL
    let server: TestCloudKitServer
    let zoneName: String
    let policy: ConflictPolicy
    private(set) var store: PersistentContainer
    private(set) var sync: StoreSync
    private(set) var network: SwitchableTransport
    private(set) var crash: CrashTransport
    var model = DeviceModel()
    var online = true
    /// Whether sync is stopped while the app goes on (its edits wait in the store's history).
    private(set) var isStopped = false

    private init(
        name: String, directory: URL, server: TestCloudKitServer, zoneName: String, policy: ConflictPolicy,
        launch: (PersistentContainer, StoreSync, SwitchableTransport, CrashTransport)
    ) {
        self.name = name
        self.directory = directory
        self.server = server
        self.zoneName = zoneName
        self.policy = policy
        (store, sync, network, crash) = launch
    }

    /// A device whose first launch has started sync (without push).
    static func launch(
        name: String, directory: URL, server: TestCloudKitServer, zoneName: String, policy: ConflictPolicy
    )
        async throws -> LifecycleDevice
    {
        let launched = try await open(name: name, directory: directory, server: server, zoneName: zoneName, policy: policy, online: true)
        let device = LifecycleDevice(name: name, directory: directory, server: server, zoneName: zoneName, policy: policy, launch: launched)
        try await device.sync.start(push: false)
        return device
    }

    private static func open(
        name: String, directory: URL, server: TestCloudKitServer, zoneName: String, policy: ConflictPolicy, online: Bool
    ) async throws -> (PersistentContainer, StoreSync, SwitchableTransport, CrashTransport) {
        let clock = server.deviceClock
        let store = PersistentContainer(
            name: name, model: try NotesModel.make(), url: directory.appendingPathComponent("\(name).store"), now: clock)
        try await store.loadPersistentStores()
        var client = ClientConfiguration()
        client.requestTimeout = TestTimeScale.scaled(.seconds(20))  // a hang guard: a sanitizer's slowdown is not a hang
        client.sleep = { _ in }
        client.retryPolicy = .never
        let crash = CrashTransport(StoreSyncWorld.sharedTransport)
        let network = SwitchableTransport(crash)
        network.isOffline = !online
        let container = Container(
            identifier: TestCloudKitServer.container, environment: .development, serverURL: server.http.url(""), authentication: .none,
            configuration: client, transport: network)
        var configuration = SyncConfiguration(
            container: container, entityTypes: [], deviceID: "device-\(name)", bookkeepingPath: directory.appendingPathComponent("\(name).sync.sqlite").path,
            zoneName: zoneName, conflictPolicy: policy, now: clock, logger: .disabled)
        configuration.reconnectInterval = nil
        let sync = try StoreSync(store: store, entities: [FolderSync.self, NoteSync.self, TagSync.self], configuration: configuration)
        return (store, sync, network, crash)
    }

    /// Quits (sync stopped, store closed) and launches again on the same files; online, the launch
    /// syncs (`start()`); offline, starting fails and the changes wait.
    func relaunch(online: Bool) async throws {
        if !isStopped { try await sync.stop() }
        isStopped = false
        try store.close()
        (store, sync, network, crash) = try await Self.open(
            name: name, directory: directory, server: server, zoneName: zoneName, policy: policy, online: online)
        self.online = online
        do {
            try await sync.start(push: false)
        } catch  where !online {}
    }

    /// Stops sync while the app goes on with its store (until ``relaunch(online:)``).
    func quitSync() async throws {
        try await sync.stop()
        isStopped = true
    }

    /// Quits without a relaunch (the end of the run).
    func quit() async throws {
        if !isStopped { try await sync.stop() }
        try store.close()
    }

    func setOnline(_ online: Bool) {
        self.online = online
        network.isOffline = !online
    }

    // MARK: Reading

    /// The notes in the store, by title.
    func notes() async throws -> [String: NoteValues] {
        try await store.newBackgroundContext(parent: .rootContext).perform { context in
            var notes: [String: NoteValues] = [:]
            for note in try context.fetch(FetchRequest(entityName: "Note")) {
                guard let title = note.value(forKey: "title") as? String else { continue }
                notes[title] = NoteValues(
                    body: note.value(forKey: "body") as? String, rank: (note.value(forKey: "rank") as? Int32).map(Int.init),
                    folder: (note.value(forKey: "folder") as? ManagedObject)?.value(forKey: "name") as? String)
            }
            return notes
        }
    }

    /// The folder names in the store.
    func folders() async throws -> [String] {
        try await store.newBackgroundContext(parent: .rootContext).perform { context in
            try context.fetch(FetchRequest(entityName: "Folder")).compactMap { $0.value(forKey: "name") as? String }.sorted()
        }
    }

    // MARK: Changing

    /// Saves a change the way a careful app does: a background context of the root, whose changes
    /// win over a save sync made while it was open (they are captured and uploaded next).
    func edit(_ body: @escaping @Sendable (ObjectContext) throws -> Void) async throws {
        try await store.appEdit(parent: .rootContext, mergePolicy: .objectTrump, body)
    }
}

/// Reads what the server holds in a zone, with a client of its own.
struct ServerReader {
    let database: Database
    let zoneID: ZoneID

    init(server: TestCloudKitServer, zoneName: String) {
        let container = Container(
            identifier: TestCloudKitServer.container, environment: .development, serverURL: server.http.url(""), authentication: .none,
            transport: StoreSyncWorld.sharedTransport)
        database = container.privateCloudDatabase
        zoneID = ZoneID(zoneName: zoneName)
    }

    /// The notes, by title.
    func notes() async throws -> [String: ServerNote] {
        let records: [StratusClient.Record]
        do {
            records = try await database.allRecordZoneChanges(inZoneWith: zoneID, since: nil).modifications()
        } catch let error as StratusError where error.code == .zoneNotFound {
            return [:]
        }
        var folders: [String: String] = [:]
        for record in records where record.recordType == "Folder" {
            folders[record.recordID.recordName] = record["name"]
        }
        var notes: [String: ServerNote] = [:]
        for record in records where record.recordType == "Note" {
            guard let title: String = record["title"] else { continue }
            var folder: String?
            if case .reference(let reference)? = record.fields["folder"] { folder = folders[reference.recordName] ?? "?\(reference.recordName)" }
            let rank: Int64? = record["rank"]
            notes[title] = ServerNote(
                values: NoteValues(body: record["text"], rank: rank.map(Int.init), folder: folder), tag: record.recordChangeTag?.rawValue,
                modified: record.modificationDate)
        }
        return notes
    }
}
