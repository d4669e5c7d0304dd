import StratusServer
import StratusTesting

/// Runs `body` against a fresh server that requires credentials (or, with `open`, one in open
/// mode), stopping it afterwards whether or not `body` throws.
func withWebAttackServer(
    backend: RecordStoreBackend = .sqlite, open: Bool = false, configure: (inout ServiceConfiguration) -> Void = { _ in },
    _ body: (TestCloudKitServer) async throws -> Void
) async throws {
    let server =
        try await open
        ? TestCloudKitServer.start(backend: backend, configure: configure)
        : TestCloudKitServer.startAuthenticated(backend: backend, configure: configure)
    try await stoppingAfterUse(server, stop: { await $0.stop() }, body)
}
