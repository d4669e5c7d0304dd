public import Foundation
public import StratusClient
public import StratusServer
import StratusServerAPNs
import StratusWire

extension TestCloudKitServer {
    /// The server's manual clock as a device clock: history timestamps and the devices' edit times on
    /// one timeline, so "the latest change" means the same on every simulated device.
    public var deviceClock: @Sendable () -> Date {
        let clock = clock
        return { Date(timeIntervalSince1970: Double(clock.now()) / 1000) }
    }

    /// A container of the test container in open mode, as a simulated device talks to this server:
    /// through `transport` (a device's own network switch), with a generous request timeout for a
    /// loaded machine, no waits between retries and at most two attempts.
    ///
    /// ```swift
    /// import StratusClient
    ///
    /// let network = SwitchableTransport(URLSessionTransport())
    /// let container = server.deviceContainer(transport: network)
    /// network.isOffline = true  // the device goes offline
    /// ```
    ///
    /// - Parameter transport: The device's transport.
    /// - Returns: The container.
    public func deviceContainer(transport: any HTTPTransport) -> Container {
        var client = ClientConfiguration()
        client.requestTimeout = TestTimeScale.scaled(.seconds(20))
        client.sleep = { _ in }
        client.retryPolicy.maximumAttempts = 2
        return Container(
            identifier: Self.container, environment: .development, serverURL: http.url(""), authentication: .none, configuration: client,
            transport: transport)
    }

    /// Gives the default container (both environments) the fake's credentials and starts APNs
    /// delivery through libcurl to it; set `push.apns.endpoint` to ``FakeAPNsServer/endpoint`` in
    /// the configuration when starting the server.
    ///
    /// ```swift
    /// let fake = try await FakeAPNsServer.start()
    /// let server = try await TestCloudKitServer.start { $0.push.apns.endpoint = fake.endpoint }
    /// try await server.deliverAPNs(to: fake)
    /// ```
    ///
    /// - Parameters:
    ///   - fake: The fake APNs server.
    ///   - container: The container given the fake's credentials.
    ///   - failures: Where every request that got no answer is noted, for a test's evidence.
    public func deliverAPNs(to fake: FakeAPNsServer, container: String = container, failures: APNsTransportFailures? = nil) async throws {
        try await fake.storeCredentials(in: store, container: container)
        let transport = try CurlAPNsTransport(configuration: .init(trustedCAFile: fake.caFile))
        service.startAPNsDelivery(transport: failures.map { FailureNotingAPNsTransport(base: transport, failures: $0) } ?? transport)
    }
}

extension FakeAPNsServer {
    /// Writes the fake's credentials (its key, key ID, team ID and topic) for `container` in both environments.
    public func storeCredentials(in store: any RecordStore, container: String) async throws {
        let pem = try String(contentsOfFile: keyFile, encoding: .utf8)
        for environment in [Environment.development, .production] {
            let credentials = try APNsCredentials.validated(
                container: container, environment: environment, keyID: keyID, teamID: teamID, topic: topic, privateKeyPEM: pem, now: 0
            )
            try await store.write { tx in try tx.putAPNsCredentials(credentials) }
        }
    }
}
