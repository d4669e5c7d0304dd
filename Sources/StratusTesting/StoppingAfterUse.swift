/// Runs `body` with `value`, then `stop(value)` whether or not `body` threw — the shape of every
/// "start a server, use it, always stop it" helper.
///
/// ```swift
/// let server = try await TestCloudKitServer.start()
/// try await stoppingAfterUse(server, stop: { await $0.stop() }) { server in
///     let reply = try await server.post("zones/list", "{}")
///     #expect(reply.status == 200)
/// }
/// ```
///
/// - Throws: What `body` throws, after `stop` ran.
public func stoppingAfterUse<Value>(
    _ value: Value, stop: (Value) async -> Void, _ body: (Value) async throws -> Void
) async throws {
    do {
        try await body(value)
    } catch {
        await stop(value)
        throw error
    }
    await stop(value)
}
