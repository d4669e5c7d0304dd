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
            await server.stop()
            throw error
        }
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
