import Foundation
import StratusHTTP
public import StratusServer
import StratusLogging
import StratusServerPostgres

extension TestCloudKitServer {
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
