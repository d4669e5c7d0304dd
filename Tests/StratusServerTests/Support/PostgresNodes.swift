import StratusServer
import StratusTesting

/// Starts `count` server nodes on one PostgreSQL schema (each configured by `configure`), runs
/// `body` with a socket client per node, and stops the nodes, the first (which drops the schema) last.
func withPostgresNodes(
    _ count: Int, configure: @escaping (inout ServiceConfiguration) -> Void = { _ in },
    _ body: ([LoopbackCloudKitClient]) async throws -> Void
) async throws {
    let first = try await TestCloudKitServer.start(backend: .postgres, configure: configure)
    var nodes = [first]
    do {
        for _ in 1..<count { nodes.append(try await TestCloudKitServer.startNode(sharingStoreOf: first, configure: configure)) }
        try await body(nodes.map { LoopbackCloudKitClient(port: $0.http.port) })
    } catch {
        for node in nodes.reversed() { await node.stop() }
        throw error
    }
    for node in nodes.reversed() { await node.stop() }
}
