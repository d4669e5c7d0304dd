public import Foundation
public import StratusHTTPServer
public import StratusLogging
public import StratusServer
public import StratusServerSQLite
import StratusHTTP

/// A real Stratus server in the benchmark's own process: SQLite in `root` (or the store `open`
/// returns), libmicrohttpd on 127.0.0.1 with an ephemeral port, rate limits off (benchmarks
/// measure the work, not the limiter).
///
/// ```swift
/// let server = try await InProcessServer.start(root: root, containers: ["iCloud.com.example.Bench"], logger: logger) {
///     $0.push.pollTimeout = .seconds(60)
/// }
/// defer { Task { await server.stop() } }
/// let client = try LoopbackHTTPClient(port: server.port)
/// ```
public struct InProcessServer: Sendable {
    /// The record store, for benchmarks that seed or inspect it directly.
    public let store: any RecordStore
    /// The CloudKit service behind the router.
    public let service: CloudKitService
    /// The HTTP server.
    public let http: HTTPServer
    /// The port the server listens on.
    public var port: UInt16 { http.port }
    /// `http://127.0.0.1:<port>`.
    public let url: URL

    /// Opens the store in `root`, creates `containers`, and starts serving.
    ///
    /// - Parameters:
    ///   - root: The directory for the SQLite file and the asset files.
    ///   - containers: Container identifiers to create before the server starts.
    ///   - threads: libmicrohttpd's thread pool size.
    ///   - logger: Where the server logs (benchmarks use `warning`).
    ///   - configure: Adjusts the service configuration after the benchmark defaults are set.
    ///   - open: Opens the record store (default: SQLite in `root`).
    /// - Throws: What opening the store or starting the server throws.
    public static func start(
        root: URL, containers: [String], threads: Int = 4, logger: Logger,
        configure: (inout ServiceConfiguration) -> Void = { _ in },
        open: (URL, Logger) async throws -> any RecordStore = { root, logger in
            try await SQLiteRecordStore.open(path: root.appendingPathComponent("stratus.sqlite").path, logger: logger)
        }
    ) async throws -> InProcessServer {
        let store = try await open(root, logger)
        _ = try await store.write { writer in
            for container in containers { _ = try writer.createContainer(container, createdAt: 0) }
        }
        var configuration = ServiceConfiguration(tokenSecret: Data(repeating: 9, count: 32))
        configuration.assets.directory = root.appendingPathComponent("assets")
        configuration.quotas.defaults = .unlimited
        configuration.authentication = .openMode  // no accounts: open mode, explicitly
        configure(&configuration)
        let service = CloudKitService(store: store, configuration: configuration, logger: logger)
        var router = Router(logger: logger)
        service.register(on: &router)
        var httpConfiguration = HTTPServerConfiguration()
        httpConfiguration.port = 0
        httpConfiguration.threadPoolSize = threads
        // Every benchmark client connects from 127.0.0.1 (PushBench parks 1,000 polls at once).
        httpConfiguration.perAddressConnectionLimit = httpConfiguration.connectionLimit
        let http = HTTPServer(configuration: httpConfiguration, responder: router, logger: logger)
        try http.start()
        return InProcessServer(store: store, service: service, http: http, url: URL(string: "http://127.0.0.1:\(http.port)")!)
    }

    /// Stops accepting work, drains the HTTP server for up to a second and closes the store.
    public func stop() async throws {
        await service.shutdown()
        await http.shutdown(gracePeriod: .seconds(1))
        try await store.close()
    }
}
