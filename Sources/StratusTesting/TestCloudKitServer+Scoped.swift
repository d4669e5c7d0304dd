public import StratusServer

extension TestCloudKitServer {
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
}
