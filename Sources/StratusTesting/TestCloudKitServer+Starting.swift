import Foundation
import StratusHTTP
public import StratusLogging
public import StratusServer
import StratusServerCrypto
import StratusServerPostgres

/// The ways a test starts servers beyond ``start(backend:containers:logger:configure:)``: requiring credentials,
/// scoped to a body (stopped afterwards, also when it throws), and further nodes on one PostgreSQL schema.
extension TestCloudKitServer {
    /// Starts a server that requires authentication, with cheap password hashing for speed.
    ///
    /// - Parameters:
    ///   - backend: The storage engine.
    ///   - containers: Containers to create before serving.
    ///   - logger: Where the service logs (nowhere by default).
    ///   - configure: Adjusts the configuration further.
    public static func startAuthenticated(
        backend: RecordStoreBackend = .sqlite, containers: [String] = [container], logger: Logger = .disabled,
        configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) async throws -> TestCloudKitServer {
        try await start(backend: backend, containers: containers, logger: logger) { configuration in
            configuration.authentication.requiresAuthentication = true
            configuration.authentication.passwordHashing = .minimum
            configure(&configuration)
        }
    }

    /// Starts a server, runs `body` against it, and stops it afterwards, also when `body` throws.
    ///
    /// ```swift
    /// try await TestCloudKitServer.withStarted(backend: .postgres, authenticated: true) { server in
    ///     let ada = try await server.signedInUser("ada@example.com")
    ///     #expect(try await server.exchange("zones/list", method: "GET", query: ada.query).status == 200)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - backend: The storage engine.
    ///   - containers: Containers to create before serving.
    ///   - authenticated: Require credentials (``startAuthenticated(backend:containers:configure:)``) rather than open mode.
    ///   - configure: Adjusts the service configuration.
    ///   - body: The test.
    /// - Throws: What starting the server or `body` throws.
    public static func withStarted(
        backend: RecordStoreBackend, containers: [String] = [container], authenticated: Bool = false,
        configure: (inout ServiceConfiguration) -> Void = { _ in },
        _ body: (TestCloudKitServer) async throws -> Void
    ) async throws {
        let server =
            authenticated
            ? try await startAuthenticated(backend: backend, containers: containers, configure: configure)
            : try await start(backend: backend, containers: containers, configure: configure)
        do {
            try await body(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// Starts a server and makes a temporary directory, runs `body`, then stops the server and
    /// removes the directory, also when `body` throws.
    ///
    /// ```swift
    /// try await TestCloudKitServer.withServer(directoryPrefix: "stratus-sync") { server, directory in
    ///     let reply = try await server.post("zones/list", "{}")
    ///     #expect(reply.status == 200)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - directoryPrefix: The temporary directory's name prefix.
    ///   - configure: Adjusts the service configuration before the server starts.
    ///   - body: The test.
    /// - Throws: What starting the server, making the directory or `body` throws.
    public static func withServer(
        directoryPrefix: String, configure: (inout ServiceConfiguration) -> Void = { _ in },
        _ body: (TestCloudKitServer, TemporaryDirectory) async throws -> Void
    ) async throws {
        let server = try await TestCloudKitServer.start(configure: configure)
        let directory: TemporaryDirectory
        do {
            directory = try TemporaryDirectory(prefix: directoryPrefix)
        } catch {
            await server.stop()
            throw error
        }
        do {
            try await body(server, directory)
        } catch {
            await server.stop()
            directory.remove()
            throw error
        }
        await server.stop()
        directory.remove()
    }

    /// Starts another node on the same PostgreSQL schema as `node`: its own store connections,
    /// service, HTTP server and push relay, as a second `stratus serve` would be.
    ///
    /// Stop the extra nodes before `node` (which drops the schema).
    ///
    /// - Parameters:
    ///   - node: A server started with the `.postgres` back end.
    ///   - configure: Adjusts the service configuration.
    /// - Throws: ``TestServerFailure`` when `node` does not run on PostgreSQL.
    public static func startNode(
        sharingStoreOf node: TestCloudKitServer, configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) async throws -> TestCloudKitServer {
        guard let shared = node.store as? PostgresRecordStore else {
            throw TestServerFailure(description: "only a PostgreSQL-backed server can share its store with another node")
        }
        let directory = try TemporaryDirectory(prefix: "stratus-node")
        let store = try await PostgresRecordStore.open(url: shared.url, schema: shared.schema, connections: 3)
        let manual = ManualClock(start: 1_760_000_000_000, step: 1)
        var configuration = ServiceConfiguration(tokenSecret: Data(repeating: 7, count: 32))
        configuration.now = manual.reader
        configuration.assets.directory = node.directory.url.appendingPathComponent("assets")
        configuration.quotas.defaults = .unlimited  // as `start`; the rate bucket is shared with `node`
        configuration.authentication.requiresAuthentication = false  // open mode, explicitly, as `start`
        // Parallel tests share one PostgreSQL cluster, where any transaction (another test's migration
        // under load) holds zone changes back: a page waits for them rather than report them twice.
        // Scaled: under a sanitizer another test's transaction stays open many times longer.
        configuration.limits.databaseFeedWait = TestTimeScale.scaled(.seconds(30))
        configure(&configuration)
        let service = CloudKitService(store: store, accounts: store, configuration: configuration, logger: .disabled)
        let relay = try PostgresPushRelay(store: store) { [service] tokens in service.signalPush(tokens: tokens) }
        var router = Router()
        service.register(on: &router)
        let http = try TestHTTPServer(responder: router)
        return TestCloudKitServer(
            store: store, service: service, http: http, directory: directory,
            administration: AccountAdministration(accounts: store, configuration: configuration), clock: manual, relay: relay
        )
    }
}
