public import Foundation
import StratusHTTP
import StratusLogging
public import StratusServer
import StratusServerSQLite
import Synchronization

/// The real CloudKit service over a real SQLite store in files, answering requests in process —
/// no socket between the client and the router — and able to die and come back from its files.
///
/// The deterministic sync simulator drives it: every request goes through the same ``Router``
/// and ``CloudKitService`` as `stratus serve`, but one at a time from the simulator's scheduler,
/// with a clock the simulator moves. ``restart(configure:)`` closes the service and the store and
/// opens them again on the same files (optionally with other limits: a tight quota, a throttle,
/// or from a backup put back meanwhile), as a server killed and started again would.
///
/// ```swift
/// let clock = ManualClock(step: 1)
/// let server = try await InProcessCloudKitServer.open(now: clock.reader)
/// let answer = await server.respond(method: "POST", path: "/database/1/\(TestCloudKitServer.container)/development/private/zones/list", body: Data("{}".utf8))
/// try await server.restart()
/// await server.stop()
/// ```
public final class InProcessCloudKitServer: Sendable {
    /// One answer: status, header fields and body.
    public struct Answer: Sendable {
        /// The HTTP status code.
        public var status: Int
        /// The header fields, in order.
        public var headers: [(name: String, value: String)]
        /// The body.
        public var body: Data
    }

    /// What one incarnation of the server is made of.
    private struct Running: Sendable {
        var store: SQLiteRecordStore
        var service: CloudKitService
        var router: Router
    }

    /// The directory holding the store's files (and the assets).
    public let directory: TemporaryDirectory
    private let now: @Sendable () -> Int64
    private let running: Mutex<Running?>
    /// How many times the server was started (1 after ``open(in:now:configure:)``).
    private let starts = Mutex(0)

    private init(directory: TemporaryDirectory, now: @escaping @Sendable () -> Int64, running: Running) {
        self.directory = directory
        self.now = now
        self.running = Mutex(running)
        starts.withLock { $0 = 1 }
    }

    /// Opens a fresh server in a new directory with the test container created, in open mode.
    ///
    /// - Parameters:
    ///   - parent: Where its directory goes (the simulator's scratch directory, in memory); the
    ///     system temporary directory by default.
    ///   - now: The service's clock, in milliseconds since 1970.
    ///   - configure: Adjusts the service configuration (limits).
    /// - Throws: When the store cannot be created.
    public static func open(
        in parent: URL? = nil, now: @escaping @Sendable () -> Int64, configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) async throws -> InProcessCloudKitServer {
        let directory = try TemporaryDirectory(prefix: "stratus-sim-server", in: parent)
        let store = try await SQLiteRecordStore.open(path: directory.path("stratus.sqlite"), memory: SQLiteStoreMemory(readerCount: 1))
        _ = try await store.write { try $0.createContainer(TestCloudKitServer.container, createdAt: 0) }
        let running = Self.start(store: store, directory: directory, now: now, configure: configure)
        return InProcessCloudKitServer(directory: directory, now: now, running: running)
    }

    private static func start(
        store: SQLiteRecordStore, directory: TemporaryDirectory, now: @escaping @Sendable () -> Int64,
        configure: (inout ServiceConfiguration) -> Void
    ) -> Running {
        var configuration = ServiceConfiguration(tokenSecret: Data(repeating: 7, count: 32))
        configuration.now = now
        configuration.assets.directory = directory.url.appendingPathComponent("assets")
        configuration.quotas.defaults = .unlimited
        configuration.authentication.requiresAuthentication = false
        configure(&configuration)
        let service = CloudKitService(store: store, configuration: configuration, logger: .disabled)
        var router = Router()
        service.register(on: &router)
        return Running(store: store, service: service, router: router)
    }

    /// How many times the server was started.
    public var startCount: Int { starts.withLock { $0 } }

    /// Answers one request as the HTTP transport would hand it to the router; a stopped server
    /// answers 503 (a connection refused is the caller's to simulate).
    ///
    /// - Parameters:
    ///   - method: `GET` or `POST`.
    ///   - path: The percent-decoded path.
    ///   - query: The query parameters.
    ///   - headers: The header fields.
    ///   - body: The body.
    /// - Returns: The router's answer.
    public func respond(
        method: String, path: String, query: [String: String] = [:], headers: [(name: String, value: String)] = [], body: Data = Data()
    ) async -> Answer {
        guard let router = running.withLock({ $0?.router }) else {
            return Answer(status: 503, headers: [], body: Data(#"{"serverErrorCode":"SERVICE_UNAVAILABLE","reason":"stopped"}"#.utf8))
        }
        var fields = HTTPHeaders()
        for header in headers { fields.add(header.name, header.value) }
        if fields["Host"] == nil { fields.add("Host", "127.0.0.1") }
        var request = HTTPRequest(method: HTTPMethod(rawValue: method), path: path, query: query, headers: fields, body: body)
        request.remoteAddress = "127.0.0.1"
        request.localAddress = "127.0.0.1:1"
        let response: HTTPResponse
        switch router.respond(to: request) {
        case .now(let ready): response = ready
        case .later(let work): response = await work()
        }
        return Answer(status: response.status.code, headers: response.headers.map { ($0.name, $0.value) }, body: response.body)
    }

    /// Stops the service and closes the store, then opens both again on the same files: what was
    /// committed is there, what was in memory (rate buckets, parked polls) is gone.
    ///
    /// - Parameters:
    ///   - configure: The configuration of the new incarnation (limits).
    ///   - whileStopped: Runs between the stop and the start with the database's path (the
    ///     store's files are `<path>`, `<path>-wal`, `<path>-shm`): copy them away as a backup, or
    ///     put a backup back, as an operator restoring a database would.
    /// - Throws: When the store cannot be opened again, or what `whileStopped` throws.
    public func restart(
        configure: (inout ServiceConfiguration) -> Void = { _ in }, whileStopped: (_ databasePath: String) throws -> Void = { _ in }
    ) async throws {
        await halt()
        try whileStopped(directory.path("stratus.sqlite"))
        let store = try await SQLiteRecordStore.open(path: directory.path("stratus.sqlite"), memory: SQLiteStoreMemory(readerCount: 1))
        let running = Self.start(store: store, directory: directory, now: now, configure: configure)
        self.running.withLock { $0 = running }
        starts.withLock { $0 += 1 }
    }

    private func halt() async {
        guard
            let old = running.withLock({ running -> Running? in
                defer { running = nil }
                return running
            })
        else { return }
        await old.service.shutdown()
        try? await old.store.close()
    }

    /// Stops the server and removes its files.
    public func stop() async {
        await halt()
        directory.remove()
    }
}
