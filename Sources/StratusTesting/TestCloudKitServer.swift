public import Foundation
import StratusHTTP
public import StratusLogging
public import StratusServer
import StratusServerPostgres
import StratusServerSQLite
import StratusWire
import Synchronization

/// The storage engines the conformance suites run against.
///
/// PostgreSQL joins ``allCases`` when `STRATUS_POSTGRES_URL` names a server (each store
/// gets a schema of its own, dropped when it closes), or when `STRATUS_REQUIRE_POSTGRES=1`
/// (set by `make test`), in which case a missing URL fails each test instead of skipping it.
public enum RecordStoreBackend: String, CaseIterable, Sendable, CustomStringConvertible {
    /// The embedded SQLite store.
    case sqlite
    /// PostgreSQL, at `STRATUS_POSTGRES_URL`.
    case postgres

    /// The back ends this run tests: SQLite always, PostgreSQL when configured or required.
    public static var allCases: [RecordStoreBackend] {
        PostgresTestDatabase.isEnabled ? [.sqlite, .postgres] : [.sqlite]
    }

    /// Opens a fresh, empty store of this kind inside `directory`.
    public func makeStore(in directory: TemporaryDirectory) async throws -> any RecordStore & AccountStore {
        switch self {
        case .sqlite: try await SQLiteRecordStore.open(path: directory.path("stratus.sqlite"))
        case .postgres: try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url())
        }
    }

    /// Opens a fresh store of this kind in a temporary directory, runs `body` with it, and closes
    /// it, also when `body` throws.
    ///
    /// ```swift
    /// try await RecordStoreBackend.sqlite.withStore { store in
    ///     _ = try await store.read { tx in try tx.zone(rowID: 1) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - prefix: The start of the temporary directory's name.
    ///   - body: The test.
    /// - Throws: What opening the store or `body` throws.
    public func withStore(prefix: String = "stratus-store", _ body: (any RecordStore & AccountStore) async throws -> Void) async throws {
        let directory = try TemporaryDirectory(prefix: prefix)
        let store = try await makeStore(in: directory)
        do {
            try await body(store)
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    /// The back end's name.
    public var description: String { rawValue }
}

/// A real CloudKit server — service, store and HTTP transport — on 127.0.0.1 and a free port.
///
/// ```swift
/// let server = try await TestCloudKitServer.start()
/// let (status, body) = try await server.post("records/modify", #"{"operations":[…]}"#)
/// await server.stop()
/// ```
public final class TestCloudKitServer: Sendable {
    /// The default container every test server has.
    public static let container = "iCloud.com.example.Tests"

    /// The store behind the service.
    public let store: any RecordStore
    /// The service answering requests.
    public let service: CloudKitService
    /// The HTTP server on loopback.
    public let http: TestHTTPServer
    /// The directory holding the store's files.
    public let directory: TemporaryDirectory
    /// Users, API tokens and keys of this server (`nil` if the back end keeps no accounts).
    public let administration: AccountAdministration?
    /// The service's clock: one millisecond per reading, movable with ``advanceClock(by:)``.
    let clock: ManualClock
    /// For a node sharing a PostgreSQL store: wakes its parked polls when another node queues notifications.
    let relay: PostgresPushRelay?
    /// The client of ``post(_:_:database:environment:container:)`` and the asset uploads.
    let client = LoopbackHTTPClient()

    init(
        store: any RecordStore, service: CloudKitService, http: TestHTTPServer, directory: TemporaryDirectory,
        administration: AccountAdministration?, clock: ManualClock, relay: PostgresPushRelay? = nil
    ) {
        self.store = store
        self.service = service
        self.http = http
        self.directory = directory
        self.administration = administration
        self.clock = clock
        self.relay = relay
    }

    /// Starts an open-mode server (no credentials, every request acts as one user) with `containers` created.
    ///
    /// - Parameters:
    ///   - backend: The storage engine.
    ///   - containers: Containers to create before serving.
    ///   - logger: Where the service logs (nowhere by default; a test that explains its failures with the log gives one).
    ///   - configure: Adjusts the service configuration (limits, clocks).
    public static func start(
        backend: RecordStoreBackend = .sqlite, containers: [String] = [container], logger: Logger = .disabled,
        configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) async throws -> TestCloudKitServer {
        let directory = try TemporaryDirectory(prefix: "stratus-server")
        let store = try await backend.makeStore(in: directory)
        for identifier in containers {
            _ = try await store.write { try $0.createContainer(identifier, createdAt: 0) }
        }
        let manual = ManualClock(start: 1_750_000_000_000, step: 1)
        var configuration = ServiceConfiguration(tokenSecret: Data(repeating: 7, count: 32))
        configuration.now = manual.reader
        configuration.assets.directory = directory.url.appendingPathComponent("assets")
        configuration.quotas.defaults = .unlimited
        configuration.authentication.requiresAuthentication = false  // open mode, explicitly; startAuthenticated() turns it on
        // Parallel tests share one PostgreSQL cluster, where any transaction (another test's migration
        // under load) holds zone changes back: a page waits for them rather than report them twice.
        // Scaled: under a sanitizer another test's transaction stays open many times longer.
        configuration.limits.databaseFeedWait = TestTimeScale.scaled(.seconds(30))
        configure(&configuration)
        let accounts: any AccountStore = store
        let service = CloudKitService(store: store, accounts: accounts, configuration: configuration, logger: logger)
        var router = Router()
        service.register(on: &router)
        let http = try TestHTTPServer(responder: router)
        return TestCloudKitServer(
            store: store, service: service, http: http, directory: directory,
            administration: AccountAdministration(accounts: accounts, configuration: configuration), clock: manual
        )
    }

    /// The URL of a database operation.
    public func url(
        _ operation: String, database: String = "private", environment: String = "development", container: String = container
    ) -> URL {
        http.url("/database/1/\(container)/\(environment)/\(database)/\(operation)")
    }

    /// POSTs a JSON body to a database operation and returns the status and body.
    public func post(
        _ operation: String, _ body: String, database: String = "private", environment: String = "development",
        container: String = container
    ) async throws -> (status: Int, body: Data) {
        try await client.send("POST", url(operation, database: database, environment: environment, container: container), body: Data(body.utf8))
    }

    /// POSTs a wire request and decodes the wire response, failing on a non-200 status.
    public func send<Response: Decodable>(
        _ operation: String, _ body: some Encodable, as type: Response.Type, database: String = "private",
        environment: String = "development"
    ) async throws -> Response {
        let text = String(decoding: try WireCoding.encode(body), as: UTF8.self)
        let (status, data) = try await post(operation, text, database: database, environment: environment)
        guard status == 200 else {
            throw TestServerFailure(description: "\(operation) answered \(status): \(String(decoding: data, as: UTF8.self))")
        }
        return try WireCoding.decode(Response.self, from: data)
    }

    /// Stops the server and removes its files.
    public func stop() async {
        relay?.stop()
        await service.shutdown()
        await http.stop()
        try? await store.close()
        directory.remove()
    }
}

/// The throwaway PostgreSQL server tests use (`Scripts/test-postgres.sh`).
public enum PostgresTestDatabase {
    /// Whether PostgreSQL tests run: a URL is configured, or PostgreSQL is required.
    public static var isEnabled: Bool { configuredURL != nil || isRequired }

    /// Whether `STRATUS_REQUIRE_POSTGRES=1`: a missing database is a failure, not a skip.
    public static var isRequired: Bool { ProcessInfo.processInfo.environment["STRATUS_REQUIRE_POSTGRES"] == "1" }

    /// `STRATUS_POSTGRES_URL`, if set and not empty.
    public static var configuredURL: String? {
        ProcessInfo.processInfo.environment["STRATUS_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The server's URL.
    ///
    /// - Throws: ``TestServerFailure`` when `STRATUS_POSTGRES_URL` is not set.
    public static func url() throws -> String {
        guard let url = configuredURL else {
            throw TestServerFailure(
                description:
                    "PostgreSQL is required (STRATUS_REQUIRE_POSTGRES=1) but STRATUS_POSTGRES_URL is not set; run `make test` or Scripts/test-postgres.sh")
        }
        return url
    }
}

/// A request the test server refused.
public struct TestServerFailure: Error, CustomStringConvertible {
    /// The status and body.
    public var description: String
}
