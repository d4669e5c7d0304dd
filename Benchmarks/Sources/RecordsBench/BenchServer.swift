import BenchSupport
import Foundation
import StratusHTTP
import StratusHTTPServer
import StratusLogging
import StratusMetrics
import StratusServer
import StratusServerPostgres
import StratusServerSQLite
import StratusWire

/// The real server in this process: a store (SQLite in a fresh temporary directory, or a
/// fresh PostgreSQL schema), `CloudKitService`, the router `stratus serve` builds (metrics,
/// access-log and CORS middleware, an immediate `/health`) and libmicrohttpd on 127.0.0.1, port 0.
///
/// One extra route, `POST /bench/echo`, answers a fixed small body from an async
/// handler: the floor of a database request (body read, park, resume, reply)
/// without the service.
final class BenchServer {
    static let container = "iCloud.com.example.RecordsBench"

    /// Where the records live.
    enum Backend {
        case sqlite
        /// A fresh schema on the server at this URL (dropped when the first node stops).
        case postgres(url: String)
    }

    let directory: TemporaryPath
    let store: any RecordStore
    let http: HTTPServer
    /// The user and API token of a server that requires authentication (`--auth web`); `nil` in open mode.
    private(set) var webAuth: WebAuthAccount?
    /// Other nodes on the same PostgreSQL schema (``startNodes(_:threads:)``), stopped with this one.
    private(set) var extraNodes: [BenchServer] = []
    var port: UInt16 { http.port }
    /// The ports of this node and its extra nodes.
    var ports: [UInt16] { [port] + extraNodes.map(\.port) }

    private init(directory: TemporaryPath, store: any RecordStore, http: HTTPServer) {
        self.directory = directory
        self.store = store
        self.http = http
    }

    /// Starts a node; with `webAuth`, it requires authentication and has one user and one API
    /// token for the container (``webAuth``), as `stratus serve` with accounts.
    static func start(threads: Int, backend: Backend = .sqlite, webAuth: Bool = false) async throws -> BenchServer {
        let directory = try TemporaryPath(prefix: "records-bench")
        let logger = Logger(label: "bench", level: .warning, handler: StreamLogHandler(format: .text))
        let store: any RecordStore
        switch backend {
        case .sqlite: store = try await SQLiteRecordStore.open(path: directory.path("stratus.sqlite"), logger: logger)
        case .postgres(let url): store = try await PostgresRecordStore.openTemporary(url: url, connections: 2 * threads, logger: logger)
        }
        _ = try await store.write { try $0.createContainer(container, createdAt: 0) }
        guard webAuth else { return try serve(store: store, directory: directory, threads: threads, logger: logger) }
        guard let accounts = store as? any AccountStore else { throw BenchFailure("this back end keeps no accounts") }
        let (server, administration) = try serve(store: store, accounts: accounts, directory: directory, threads: threads, logger: logger)
        server.webAuth = try await WebAuthAccount.create(administration, container: container)
        return server
    }

    /// Starts `count` more nodes on this node's PostgreSQL schema, each with its own pool, service and HTTP server.
    func startNodes(_ count: Int, threads: Int) async throws {
        guard count > 0 else { return }
        guard let shared = store as? PostgresRecordStore else { throw BenchFailure("only a PostgreSQL node can share its store") }
        let logger = Logger(label: "bench", level: .warning, handler: StreamLogHandler(format: .text))
        for _ in 0..<count {
            let store = try await PostgresRecordStore.open(url: shared.url, schema: shared.schema, connections: 2 * threads, logger: logger)
            extraNodes.append(try Self.serve(store: store, directory: try TemporaryPath(prefix: "records-bench-node"), threads: threads, logger: logger))
        }
    }

    private static func serve(store: any RecordStore, directory: TemporaryPath, threads: Int, logger: Logger) throws -> BenchServer {
        try serve(store: store, accounts: nil, directory: directory, threads: threads, logger: logger).server
    }

    /// Serves `store`; with `accounts`, requiring authentication (and returning their administration).
    private static func serve(
        store: any RecordStore, accounts: (any AccountStore)?, directory: TemporaryPath, threads: Int, logger: Logger
    ) throws -> (server: BenchServer, administration: AccountAdministration?) {
        var secret = SystemRandomNumberGenerator()
        var configuration = ServiceConfiguration(tokenSecret: Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &secret) }))
        configuration.quotas.defaults = .unlimited
        if accounts == nil {
            configuration.authentication = .openMode  // no accounts: open mode, explicitly
        } else {
            configuration.authentication.passwordHashing = .minimum
        }
        let service = CloudKitService(store: store, accounts: accounts, configuration: configuration, logger: logger)
        let metrics = MetricsRegistry()
        var router = Router(logger: logger)
        router.use(MetricsMiddleware(registry: metrics))
        router.use(AccessLogMiddleware(logger: logger))
        router.use(CORSMiddleware())
        let health = Data(#"{"status":"ok"}"#.utf8)
        router.immediate(.get, "/health") { _ in .json(bytes: health) }
        router.route(.post, "/bench/echo") { _ in .json(bytes: health) }
        service.register(on: &router)
        var http = HTTPServerConfiguration()
        http.port = 0
        http.threadPoolSize = threads
        let server = HTTPServer(configuration: http, responder: router, logger: logger, metrics: metrics)
        try server.start()
        let administration = accounts.map { AccountAdministration(accounts: $0, configuration: configuration) }
        return (BenchServer(directory: directory, store: store, http: server), administration)
    }

    /// The request target of a private-database operation.
    static func path(_ operation: String) -> String {
        "/database/1/\(container)/development/private/\(operation)"
    }

    /// A new connection to this node, signed in as ``webAuth``'s user (a session of its own) when the node requires it.
    func connect() async throws -> BenchClient {
        try BenchClient(port: port, webAuth: try await webAuth?.newSession())
    }

    /// Creates a custom zone over HTTP.
    func createZone(_ name: String, client: BenchClient) throws {
        let body = try WireCoding.encode(ZonesModify.Request(operations: [.create(ZoneID(zoneName: name))]))
        let reply = try client.send("POST", Self.path("zones/modify"), body: [UInt8](body))
        guard reply.status == 200, !reply.body.contains("serverErrorCode") else {
            throw BenchFailure("zones/modify answered \(reply.status): \(reply.text)")
        }
    }

    func stop() async {
        for node in extraNodes { await node.stop() }
        await http.shutdown(gracePeriod: .seconds(1))
        try? await store.close()
        directory.remove()
    }
}

/// A fresh directory from `mkdtemp(3)`.
struct TemporaryPath {
    let root: String

    init(prefix: String) throws {
        var template = Array("\(NSTemporaryDirectory())/\(prefix)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw BenchFailure("mkdtemp failed for \(prefix)")
        }
        root = String(cString: made)
    }

    func path(_ name: String) -> String { "\(root)/\(name)" }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}

/// A benchmark step that did not do what it should.
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The records every scenario writes: type `Item`, five fields (2 STRING, 2 INT64, 1 TIMESTAMP), about 200 bytes of field JSON.
enum Payloads {
    static let recordType = "Item"
    static let base: Int64 = 1_767_225_600_000

    /// A deterministic but scrambled field set for record number `index`.
    static func fields(_ index: Int, revision: Int = 0) -> [String: FieldValue] {
        let scrambled = (index &* 7919 &+ revision &* 104_729) % 1_000_003
        return [
            "title": .string("Item \(index) rev \(revision)"),
            "note": .string("quick brown fox \(scrambled)"),
            "priority": .int64(Int64(scrambled % 1000)),
            "quantity": .int64(Int64(index % 97 + revision)),
            "due": .timestamp(Timestamp(millisecondsSince1970: base + Int64(scrambled) * 1000)),
        ]
    }

    static func name(_ prefix: String, _ index: Int) -> String { "\(prefix)-\(index)" }

    /// A `records/modify` body creating records `indices` named `prefix-N` in `zone`.
    static func createBody(prefix: String, indices: Range<Int>, zone: String) throws -> [UInt8] {
        let operations = indices.map { index in
            RecordOperation.create(Record(recordName: name(prefix, index), recordType: recordType, fields: fields(index)))
        }
        return [UInt8](try WireCoding.encode(RecordsModify.Request(operations: operations, zoneID: ZoneID(zoneName: zone))))
    }

    /// A `records/modify` body with one conditional `update` of `name`.
    static func updateBody(name: String, tag: String, revision: Int, zone: String) throws -> [UInt8] {
        let record = Record(recordName: name, fields: ["quantity": .int64(Int64(revision)), "note": .string("revision \(revision)")])
        let request = RecordsModify.Request(operations: [.update(record, expecting: ChangeTag(tag))], zoneID: ZoneID(zoneName: zone))
        return [UInt8](try WireCoding.encode(request))
    }

    /// A `records/modify` body force-updating records `indices` (the delta scenario's 100 changes).
    static func forceUpdateBody(prefix: String, indices: [Int], revision: Int, zone: String) throws -> [UInt8] {
        let operations = indices.map { index in
            RecordOperation.forceUpdate(Record(recordName: name(prefix, index), recordType: recordType, fields: fields(index, revision: revision)))
        }
        return [UInt8](try WireCoding.encode(RecordsModify.Request(operations: operations, zoneID: ZoneID(zoneName: zone))))
    }

    /// A `records/changes` body.
    static func changesBody(zone: String, token: String?) throws -> [UInt8] {
        let request = RecordsChanges.Request(zoneID: ZoneID(zoneName: zone), syncToken: token.map(SyncToken.init(rawValue:)), resultsLimit: 200)
        return [UInt8](try WireCoding.encode(request))
    }

    /// The filtered, sorted query of scenario 6: `priority > 500`, newest `due` first.
    static func filteredQueryBody(zone: String) throws -> [UInt8] {
        let query = Query(
            recordType: recordType, filterBy: [Filter(.field("priority"), .greaterThan, .int64(500))],
            sortBy: [Sort(.field("due"), ascending: false)]
        )
        return [UInt8](try WireCoding.encode(RecordsQuery.Request(query: query, zoneID: ZoneID(zoneName: zone), resultsLimit: 200)))
    }

    /// The stand-in: every record of the type, in the store's order.
    static func typeQueryBody(zone: String) throws -> [UInt8] {
        [UInt8](try WireCoding.encode(RecordsQuery.Request(query: Query(recordType: recordType), zoneID: ZoneID(zoneName: zone), resultsLimit: 200)))
    }
}
