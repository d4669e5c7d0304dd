import StratusServer
import StratusTesting

/// Runs `body` against a fresh server that requires credentials (or, with `open`, one in open
/// mode), stopping it afterwards whether or not `body` throws.
func withWebAttackServer(
    open: Bool = false, configure: (inout ServiceConfiguration) -> Void = { _ in }, _ body: (TestCloudKitServer) async throws -> Void
) async throws {
    let server = try await open ? TestCloudKitServer.start(configure: configure) : TestCloudKitServer.startAuthenticated(configure: configure)
    try await stoppingAfterUse(server, stop: { await $0.stop() }, body)
}
