// The servers AuthBench measures (main.swift says what it runs): one per mode, in this process.
import Foundation
import StratusHTTP
import StratusHTTPServer
import StratusLogging
import StratusServer
import StratusServerSQLite

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One server of the benchmark and what it took to start it.
final class AuthBenchServer {
    let root: URL
    let store: SQLiteRecordStore
    let http: HTTPServer
    let administration: AccountAdministration?

    init(authenticated: Bool, keyGeneration: Bool = true) async throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("auth-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let logger = Logger(label: "bench", level: .warning, handler: StreamLogHandler(format: .text))
        store = try await SQLiteRecordStore.open(path: root.appendingPathComponent("stratus.sqlite").path, logger: logger)
        _ = try await store.write { try $0.createContainer(container, createdAt: 0) }
        var configuration = ServiceConfiguration(tokenSecret: Data((0..<32).map { _ in UInt8.random(in: 0...255) }))
        configuration.quotas.defaults = .unlimited
        configuration.authentication.requiresAuthentication = authenticated
        configuration.authentication.passwordHashing = .minimum
        let accounts: (any AccountStore)? = authenticated ? (keyGeneration ? store as any AccountStore : WithoutGeneration(store: store)) : nil
        let service = CloudKitService(store: store, accounts: accounts, configuration: configuration, logger: logger)
        administration = accounts.map { AccountAdministration(accounts: $0, configuration: configuration) }
        var router = Router(logger: logger)
        service.register(on: &router)
        var http = HTTPServerConfiguration()
        http.port = 0
        http.threadPoolSize = threads
        self.http = HTTPServer(configuration: http, responder: router, logger: logger)
        try self.http.start()
    }

    var port: UInt16 { http.port }

    func stop() async {
        await http.shutdown(gracePeriod: .seconds(1))
        try? await store.close()
        try? FileManager.default.removeItem(at: root)
    }
}

/// The SQLite store's accounts without its credential generation: the authenticator then reads
/// the key record on every signed request.
struct WithoutGeneration: AccountStore {
    let store: SQLiteRecordStore

    func readAccounts<T: Sendable>(_ body: @escaping @Sendable (any AccountStoreReader) throws -> T) async throws -> T {
        try await store.readAccounts(body)
    }

    func writeAccounts<T: Sendable>(_ body: @escaping @Sendable (any AccountStoreWriter) throws -> T) async throws -> T {
        try await store.writeAccounts(body)
    }
}
