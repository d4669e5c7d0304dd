import Foundation
import StratusClient
import StratusLogging
import StratusServer
import StratusSync
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// An in-memory local store: the app side of one simulated device.
final class MemoryStore: SyncDelegate {
    struct State {
        var entities: [any MemoryEntity] = []
        var autoFinish = true
        var held: [FinishSync] = []
        var deliveries: [SyncChanges] = []
        var saves: [(String?, (any Error)?)] = []
        var conflicts: [SyncConflict] = []
        var placeholderFolder: Folder?
        /// `didResolve` waits while this is set (a slow delegate), then records the conflict.
        var holdsConflictReports = false
    }

    let state = Mutex(State())

    func insert(_ entities: any MemoryEntity...) {
        state.withLock { $0.entities += entities }
    }

    func remove(_ entity: any MemoryEntity) {
        state.withLock { $0.entities.removeAll { $0 === entity } }
    }

    func all<E: MemoryEntity>(_ type: E.Type) -> [E] {
        state.withLock { $0.entities.compactMap { $0 as? E } }
    }

    func find<E: MemoryEntity>(_ type: E.Type, _ syncID: String?) -> E? {
        all(type).first { $0.syncID == syncID && syncID != nil }
    }

    var autoFinish: Bool {
        get { state.withLock { $0.autoFinish } }
        set { state.withLock { $0.autoFinish = newValue } }
    }

    var conflicts: [SyncConflict] { state.withLock { $0.conflicts } }
    var deliveries: [SyncChanges] { state.withLock { $0.deliveries } }

    func allEntities(ofType type: any SyncableEntity.Type) async throws -> [any SyncableEntity] {
        state.withLock { $0.entities.filter { Swift.type(of: $0) == type } }
    }

    func createEntity(ofType type: any SyncableEntity.Type) async throws -> any SyncableEntity {
        guard let memory = type as? any MemoryEntity.Type else { throw TestFailure("cannot create \(type)") }
        let entity = memory.init()
        insert(entity)
        return entity
    }

    func entity(ofType type: any SyncableEntity.Type, syncID: String) async throws -> (any SyncableEntity)? {
        state.withLock { state in
            state.entities.first { Swift.type(of: $0) == type && ($0.value(forKey: "syncID") as? String) == syncID }
        }
    }

    func syncController(_ controller: SyncController, didSave entity: (any SyncableEntity)?, record: StratusClient.Record?, error: (any Error)?) async {
        state.withLock { $0.saves.append((record?.recordID.recordName, error)) }
    }

    func syncController(_ controller: SyncController, didFinishSync changes: SyncChanges, finishSync: FinishSync) async {
        let finishNow = state.withLock { state in
            state.deliveries.append(changes)
            for deleted in changes.deleted {
                state.entities.removeAll { ($0.value(forKey: "syncID") as? String) == deleted.syncID }
            }
            if !state.autoFinish { state.held.append(finishSync) }
            return state.autoFinish
        }
        if finishNow { try? await finishSync() }
    }

    func referencePlaceholder(for type: any SyncableEntity.Type) async throws -> (any SyncableEntity)? {
        if type == Folder.self, let folder = state.withLock({ $0.placeholderFolder }) { return folder }
        return type.referencePlaceholder
    }

    func syncController(_ controller: SyncController, didResolve conflict: SyncConflict) async {
        while state.withLock({ $0.holdsConflictReports }) { try? await Task.sleep(for: .milliseconds(5)) }
        state.withLock { $0.conflicts.append(conflict) }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One simulated device: its own store, bookkeeping file, device ID and network switch.
struct Device {
    let name: String
    let store: MemoryStore
    let sync: SyncController
    let transport: SwitchableTransport
    let bookkeepingPath: String

    func cloud(_ entity: any SyncableEntity) -> CloudProxy { sync.cloud(entity) }
}

/// A real server on loopback and the devices talking to it.
final class SyncWorld: Sendable {
    static let entityTypes: [any SyncableEntity.Type] = [Folder.self, Note.self, Tag.self, Attachment.self]
    /// One connection pool for every simulated device of the suite (sessions are not free); each
    /// device wraps it in its own `SwitchableTransport` to go offline.
    static let sharedTransport = DefaultTransport.make()

    let server: TestCloudKitServer
    let directory: TemporaryDirectory

    private init(server: TestCloudKitServer, directory: TemporaryDirectory) {
        self.server = server
        self.directory = directory
    }

    static func run(
        configure: (inout ServiceConfiguration) -> Void = { _ in }, _ body: (SyncWorld) async throws -> Void
    ) async throws {
        try await TestCloudKitServer.withServer(directoryPrefix: "stratus-sync", configure: configure) { server, directory in
            try await body(SyncWorld(server: server, directory: directory))
        }
    }

    /// The device clock: the server's manual clock, so "latest change" is on one timeline.
    var clock: @Sendable () -> Date { server.deviceClock }

    func device(
        _ name: String, policy: ConflictPolicy = .threeWayMerge, store: MemoryStore = MemoryStore(), bookkeeping: String? = nil,
        logger: Logger = .disabled, reconnect: Duration? = nil, network: (any HTTPTransport)? = nil,
        configure: (inout SyncConfiguration) -> Void = { _ in }
    ) throws -> Device {
        let transport = SwitchableTransport(network ?? Self.sharedTransport)
        let container = server.deviceContainer(transport: transport)
        let path = bookkeeping ?? directory.path("\(name).sqlite")
        let configuration = SyncConfiguration(
            container: container, entityTypes: Self.entityTypes, syncIdKey: "syncID", changeDateKey: "modified",
            excludedKeys: ["scratch"], deviceID: "device-\(name)", bookkeepingPath: path, conflictPolicy: policy, now: clock, logger: logger)
        var configured = configuration
        configured.reconnectInterval = reconnect
        configure(&configured)
        let controller = try SyncController(configuration: configured, delegate: store)
        return Device(name: name, store: store, sync: controller, transport: transport, bookkeepingPath: path)
    }
}

/// Counts the record queries of one record type a device sends.
final class QueryCounter: HTTPTransport {
    let recordType: String
    private let count = Mutex(0)

    init(recordType: String) {
        self.recordType = recordType
    }

    var queries: Int { count.withLock { $0 } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if request.url.path.hasSuffix("/records/query"), String(decoding: request.body, as: UTF8.self).contains("\"\(recordType)\"") {
            count.withLock { $0 += 1 }
        }
        return try await SyncWorld.sharedTransport.send(request)
    }
}
