import BenchServer
import BenchSupport
import Foundation
import StratusClient
import StratusLogging
import StratusServer
import StratusStore
import StratusStoreSync
import StratusSync
import StratusWire
import Synchronization

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Folders and notes (each note in a folder), with the attributes sync needs.
enum BenchModel {
    static func make() throws -> ObjectModel {
        let sync = StoreSync.syncAttributes()
        return try ObjectModel(
            version: "1",
            entities: [
                EntityDescription(
                    "Folder", attributes: [AttributeDescription("name", .string)] + sync,
                    relationships: [.toMany("notes", destination: "Note", inverse: "folder")]),
                EntityDescription(
                    "Note",
                    attributes: [
                        AttributeDescription("title", .string), AttributeDescription("body", .string, isOptional: true),
                        AttributeDescription("rank", .integer64, isOptional: true),
                    ] + sync,
                    relationships: [.toOne("folder", destination: "Folder", inverse: "notes")], indexes: [["title"], ["rank"]]),
            ])
    }
}

enum FolderMapping: StoreEntityMapping {
    static let entityName = "Folder"
    static let attributes = ["name": "name"]
}

enum NoteMapping: StoreEntityMapping {
    static let entityName = "Note"
    static let attributes = ["title": "title", "body": "body", "rank": "rank"]
    static var toOne: [String: StoreRelationshipMapping] { ["folder": StoreRelationshipMapping(field: "folder", target: FolderMapping.self)] }
}

/// A device: its own store and sync.
struct BenchDevice {
    let store: PersistentContainer
    let sync: StoreSync

    func edit(_ body: @escaping @Sendable (ObjectContext) throws -> Void) async throws {
        let context = store.newBackgroundContext(parent: .rootContext)
        context.transactionAuthor = "app"
        try await context.perform { context in
            try body(context)
            try context.save()
        }
        try await context.saveChain()
    }

    func count(_ entity: String = "Note", where predicate: FetchPredicate? = nil) async throws -> Int {
        try await store.newBackgroundContext(parent: .rootContext).perform { context in
            try context.count(for: FetchRequest(entityName: entity, predicate: predicate))
        }
    }
}

/// The server in this process, on loopback, and the devices.
final class BenchWorld: Sendable {
    static let containerID = "iCloud.com.example.SyncBench"
    let root: URL
    let serverURL: URL
    let server: InProcessServer
    let transport = CountingTransport(DefaultTransport.make())

    init() async throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("sync-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let logger = Logger(label: "bench", level: .warning, handler: StreamLogHandler(format: .text))
        server = try await InProcessServer.start(root: root, containers: [Self.containerID], logger: logger)
        serverURL = server.url
    }

    func cloud() -> StratusClient.Container {
        var client = ClientConfiguration()
        client.requestTimeout = .seconds(120)
        return StratusClient.Container(
            identifier: Self.containerID, environment: .development, serverURL: serverURL, authentication: .none, configuration: client,
            transport: transport)
    }

    func device(_ name: String, push: Bool, zoneName: String = "StratusSync") async throws -> BenchDevice {
        let store = PersistentContainer(name: name, model: try BenchModel.make(), url: root.appendingPathComponent("\(name).store"))
        try await store.loadPersistentStores()
        var configuration = SyncConfiguration(
            container: cloud(), entityTypes: [], deviceID: name, bookkeepingPath: root.appendingPathComponent("\(name).sync").path,
            zoneName: zoneName)
        configuration.reconnectInterval = nil
        configuration.logger = .disabled
        let sync = try StoreSync(store: store, entities: [FolderMapping.self, NoteMapping.self], configuration: configuration)
        try await sync.start(push: push)
        return BenchDevice(store: store, sync: sync)
    }

    /// Writes `notes` notes in folders of 100 straight to a zone through the SDK (records as a
    /// device's upload makes them), in requests of 200: the initial sync's data without growing a store.
    func seed(zoneName: String, notes: Int) async throws {
        let database = cloud().privateCloudDatabase
        let zone = ZoneID(zoneName: zoneName)
        _ = try await database.save(RecordZone(zoneID: zone))
        var records: [StratusClient.Record] = []
        var folder = RecordID(recordName: "", zoneID: zone)
        for index in 0..<notes {
            if index % 100 == 0 {
                folder = RecordID(recordName: UUID().uuidString, zoneID: zone)
                var record = StratusClient.Record(recordType: "Folder", recordID: folder)
                record["name"] = FieldValue.string("Folder \(index / 100)")
                records.append(record)
            }
            var note = StratusClient.Record(recordType: "Note", recordID: RecordID(recordName: UUID().uuidString, zoneID: zone))
            note["title"] = FieldValue.string("Note \(index)")
            note["body"] = FieldValue.string("Body of note \(index), a few words long.")
            note["rank"] = FieldValue.int64(Int64(index))
            note["folder"] = FieldValue.reference(Reference(folder))
            records.append(note)
            if records.count >= 200 || index == notes - 1 {
                let results = try await database.modifyRecords(saving: records, deleting: [], atomically: false)
                for case .failure(let error) in results.saveResults.values { throw error }
                records = []
            }
        }
    }

    func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}

/// The transport of every device, counting requests and bytes per endpoint (the last path component,
/// e.g. `modify`, `changes`), so the bench can say how many records go in each request.
final class CountingTransport: HTTPTransport {
    struct Tally: Sendable {
        var requests = 0
        var sentBytes = 0
        var receivedBytes = 0
        var nanoseconds: UInt64 = 0
    }

    private let base: any HTTPTransport
    private let tallies = Mutex<[String: Tally]>([:])

    init(_ base: any HTTPTransport) {
        self.base = base
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let start = monotonicNanoseconds()
        let response = try await base.send(request)
        let elapsed = monotonicNanoseconds() - start
        let path = request.url.pathComponents.suffix(2).joined(separator: "/")
        tallies.withLock { tallies in
            tallies[path, default: Tally()].requests += 1
            tallies[path, default: Tally()].sentBytes += request.body.count
            tallies[path, default: Tally()].receivedBytes += response.body.count
            tallies[path, default: Tally()].nanoseconds += elapsed
        }
        return response
    }

    /// The tallies since the last call, and starts again.
    func take() -> [String: Tally] {
        tallies.withLock { tallies in
            defer { tallies = [:] }
            return tallies
        }
    }
}
