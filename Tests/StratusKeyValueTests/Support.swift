import Foundation
import StratusClient
import StratusKeyValue
import StratusServer
import StratusTesting
import StratusWire
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A server requiring sign-in, one user, and devices (containers) signed in as that user.
struct KeyValueFixture {
    let server: TestCloudKitServer
    let user: TestCloudKitServer.SignedInUser
    let directory: TemporaryDirectory

    /// A container signed in as the user (or as `other`).
    func container(transport: (any HTTPTransport)? = nil, as other: TestCloudKitServer.SignedInUser? = nil) -> Container {
        let user = other ?? self.user
        var configuration = ClientConfiguration()
        configuration.requestTimeout = TestTimeScale.scaled(.seconds(20))
        configuration.sleep = { _ in }
        return Container(
            identifier: TestCloudKitServer.container, environment: .development, serverURL: server.http.url(""),
            authentication: .apiToken(user.apiToken, webAuthToken: user.webAuthToken), configuration: configuration,
            transport: transport)
    }

    /// A store on a new device (its own file unless `file` names one).
    func store(
        file: String = UUID().uuidString, transport: (any HTTPTransport)? = nil, automatic: Bool = true, pushes: Bool = true,
        as other: TestCloudKitServer.SignedInUser? = nil, poll: Bool = false
    ) throws -> KeyValueStore {
        var configuration = KeyValueStore.Configuration()
        configuration.syncsAutomatically = automatic
        configuration.observesPushes = pushes
        configuration.notifications.pollTimeout = .seconds(20)
        configuration.notifications.backoff.initialBackoff = .milliseconds(50)
        configuration.retryBackoff.initialBackoff = .milliseconds(200)
        configuration.retryBackoff.maximumBackoff = .seconds(1)
        configuration.pollInterval = poll ? .seconds(2) : nil
        return try KeyValueStore(
            container: container(transport: transport, as: other), databaseURL: directory.url.appendingPathComponent(file + ".sqlite"),
            configuration: configuration)
    }

    static func run(_ body: (KeyValueFixture) async throws -> Void) async throws {
        let server = try await TestCloudKitServer.startAuthenticated()
        let directory = try TemporaryDirectory(prefix: "kv-tests")
        do {
            let user = try await server.signedInUser("kv@example.com")
            try await body(KeyValueFixture(server: server, user: user, directory: directory))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

/// Collects a store's announcements.
final class ChangeLog: Sendable {
    private let changes = Mutex<[KeyValueStore.ExternalChange]>([])
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(_ store: KeyValueStore) {
        let stream = store.didChangeExternally
        let started = Task { [weak self] in
            for await change in stream { self?.changes.withLock { $0.append(change) } }
        }
        task.withLock { $0 = started }
    }

    deinit { task.withLock { $0?.cancel() } }

    var all: [KeyValueStore.ExternalChange] { changes.withLock { $0 } }

    /// Waits until an announcement matches, failing after `timeout`.
    @discardableResult
    func wait(
        timeout: Duration = .seconds(30), for predicate: (KeyValueStore.ExternalChange) -> Bool
    ) async throws -> KeyValueStore.ExternalChange {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let match = all.first(where: predicate) { return match }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("no matching announcement within \(timeout); got \(all)")
        throw CancellationError()
    }
}
