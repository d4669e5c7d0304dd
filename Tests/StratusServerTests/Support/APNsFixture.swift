import Foundation
import StratusLogging
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// A server delivering APNs pushes to a fake APNs server, both on loopback.
struct APNsWorld {
    let server: TestCloudKitServer
    let fake: FakeAPNsServer
    /// The requests that got no answer: each one a retry no script asked for.
    let failures: APNsTransportFailures
    /// The service's warnings and errors (a batch whose results could not be recorded, a push given up).
    var log = InMemoryLogHandler()

    /// A device token: 32 bytes in hex, different for each `number`.
    static func deviceToken(_ number: Int) -> String {
        String(format: "%064x", number + 0xD00D_0000)
    }

    /// The service's configuration for fast, observable tests: quick retries and sweeps.
    ///
    /// The request deadline is generous on purpose: a deadline that passes is a retry, so on two
    /// shared cores under the whole suite (a CI run saw the fake answer later than a 2 s deadline)
    /// a short one made a retry no test scripted. A test of the deadline itself sets its own.
    static func configure(_ configuration: inout ServiceConfiguration, fake: FakeAPNsServer) {
        configuration.push.apns.endpoint = fake.endpoint
        configuration.push.apns.retryBaseDelay = .milliseconds(20)
        configuration.push.apns.retryMaximumDelay = .milliseconds(200)
        configuration.push.apns.requestTimeout = TestTimeScale.scaled(.seconds(10))
        configuration.push.apns.sweepInterval = .milliseconds(200)
    }

    /// Runs `body` with a fresh fake APNs server and a server of `backend` delivering to it.
    static func with(
        _ backend: RecordStoreBackend = .sqlite, authenticated: Bool = false, configure: (inout ServiceConfiguration) -> Void = { _ in },
        _ body: (APNsWorld) async throws -> Void
    ) async throws {
        let fake = try await FakeAPNsServer.start()
        defer { fake.stop() }
        let setup: (inout ServiceConfiguration) -> Void = { configuration in
            Self.configure(&configuration, fake: fake)
            configure(&configuration)
        }
        let log = InMemoryLogHandler()
        let logger = Logger(label: "apns-test", level: .warning, handler: log)
        let server =
            authenticated
            ? try await TestCloudKitServer.startAuthenticated(backend: backend, logger: logger, configure: setup)
            : try await TestCloudKitServer.start(backend: backend, logger: logger, configure: setup)
        let failures = APNsTransportFailures()
        do {
            try await server.deliverAPNs(to: fake, failures: failures)
            try await body(APNsWorld(server: server, fake: fake, failures: failures, log: log))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    /// `tokens/register` of an APNs device token (open mode: the one user).
    func register(_ token: String, apnsEnvironment: String = "development", query: [(String, String)] = []) async throws {
        let reply = try await server.exchange(
            "/device/1/\(TestCloudKitServer.container)/development/tokens/register",
            body: Data(#"{"apnsEnvironment":"\#(apnsEnvironment)","apnsToken":"\#(token)"}"#.utf8), query: query
        )
        guard reply.status == 200 else { throw PushTestFailure(description: "tokens/register answered \(reply.status): \(reply.text)") }
    }

    /// Waits until `condition` holds for the service's APNs counters (at most `timeout`).
    func statistics(within timeout: Duration = .seconds(30), until condition: (APNsDeliveryStatistics) -> Bool) async throws -> APNsDeliveryStatistics {
        let deadline = ContinuousClock.now + timeout
        while true {
            let statistics = server.service.apnsStatistics
            if condition(statistics) || ContinuousClock.now >= deadline { return statistics }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// What a failed expectation needs to be explained: the delivery's counters, the statuses the
    /// fake answered, the requests that got no answer, and the service's warnings.
    func evidence() async -> String {
        let statuses = (try? await fake.pushes().map(\.status)).map { "\($0)" } ?? "unknown"
        return "statistics \(server.service.apnsStatistics); the fake answered \(statuses); no answer: \(failures.all); logged: \(log.entries.map(\.message))"
    }

    /// The first push the fake received for `token`, waiting for it up to `timeout`.
    func firstPush(for token: String, timeout: Duration = .seconds(30)) async throws -> FakeAPNsPush? {
        let deadline = ContinuousClock.now + timeout
        var pushes = try await fake.pushes()
        while ContinuousClock.now < deadline {
            if let push = pushes.first(where: { $0.token == token }) { return push }
            pushes = try await fake.pushes(atLeast: pushes.count + 1, timeout: .seconds(1))
        }
        return pushes.first { $0.token == token }
    }
}
