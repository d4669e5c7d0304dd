import Foundation
import StratusClient
import StratusServer
import StratusTesting
import StratusWire

/// A server that requires authentication, one user, and containers ("devices") signed in as that user.
struct SignedInFixture {
    let server: TestCloudKitServer
    let user: TestCloudKitServer.SignedInUser

    /// A new container (device) signed in as the fixture's user.
    func device(configuration: ClientConfiguration = .fastTests, transport: (any HTTPTransport)? = nil) -> Container {
        Container(
            identifier: TestCloudKitServer.container, environment: .development, serverURL: server.http.url(""),
            authentication: .apiToken(user.apiToken, webAuthToken: user.webAuthToken), configuration: configuration,
            transport: transport)
    }

    /// Runs `body` against a fresh authenticated server, stopping it afterwards.
    static func run(
        configure: (inout ServiceConfiguration) -> Void = { _ in }, _ body: (SignedInFixture) async throws -> Void
    ) async throws {
        let server = try await TestCloudKitServer.startAuthenticated(configure: configure)
        do {
            let user = try await server.signedInUser("ada@example.com")
            try await body(SignedInFixture(server: server, user: user))
        } catch {
            await stop(server)
            throw error
        }
        await stop(server)
    }

    /// Answers parked courier polls first and gives libmicrohttpd a moment to resume their
    /// connections: `MHD_stop_daemon` aborts the process if a connection is still suspended.
    private static func stop(_ server: TestCloudKitServer) async {
        server.service.beginShutdown()
        try? await Task.sleep(for: .milliseconds(300))
        await server.stop()
    }
}

extension NotificationConfiguration {
    /// Short polls and backoff for tests.
    static var fastTests: NotificationConfiguration {
        var configuration = NotificationConfiguration()
        configuration.pollTimeout = .seconds(20)
        configuration.backoff.initialBackoff = .milliseconds(20)
        configuration.backoff.maximumBackoff = .milliseconds(200)
        return configuration
    }
}

/// Reads the first element of an async sequence, failing after `timeout`.
func first<S: AsyncSequence & Sendable>(
    of sequence: S, within timeout: Duration = .seconds(30), where predicate: @escaping @Sendable (S.Element) -> Bool = { _ in true }
) async throws -> S.Element where S.Element: Sendable {
    try await withThrowingTaskGroup(of: S.Element?.self) { group in
        group.addTask {
            for try await element in sequence where predicate(element) { return element }
            return nil
        }
        group.addTask {
            try await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        guard let result = try await group.next(), let element = result else {
            throw StratusError(.networkFailure, "nothing arrived within \(timeout)")
        }
        return element
    }
}
