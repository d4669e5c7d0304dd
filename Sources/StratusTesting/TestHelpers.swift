public import StratusServer

/// Polls `condition` every 10 ms until it holds or `timeout` passes; returns whether it held.
///
/// For tests waiting on something another task or process does (a push arriving, a merge):
///
/// ```swift
/// #expect(await eventually { titles() == ["Hello"] })
/// ```
///
/// - Parameters:
///   - timeout: The longest wait on an ordinary build (``TestTimeScale`` stretches it under a
///     sanitizer); keep it wide, tests share loaded cores.
///   - condition: What to wait for.
/// - Returns: Whether `condition` held before the timeout.
public func eventually(timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + TestTimeScale.scaled(timeout)
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return try await condition()
}

extension TestCloudKitServer {
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
}
