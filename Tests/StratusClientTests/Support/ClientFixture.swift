import Foundation
import StratusClient
import StratusServer
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// A real server on loopback and a container pointed at it (open mode, no credentials).
struct LiveFixture {
    let server: TestCloudKitServer
    let container: Container

    var database: Database { container.privateCloudDatabase }

    /// Runs `body` against a fresh server, stopping it afterwards.
    static func run(
        configureServer: (inout ServiceConfigurationEdit) -> Void = { _ in },
        configuration: ClientConfiguration = .fastTests,
        transport: (any HTTPTransport)? = nil,
        _ body: (LiveFixture) async throws -> Void
    ) async throws {
        var edit = ServiceConfigurationEdit()
        configureServer(&edit)
        let limit = edit.maximumOperationsPerRequest
        let server = try await TestCloudKitServer.start { configuration in
            if let limit { configuration.limits.maximumOperationsPerRequest = limit }
        }
        let container = Container(
            identifier: TestCloudKitServer.container, environment: .development, serverURL: server.http.url(""),
            authentication: .none, configuration: configuration, transport: transport)
        do {
            try await body(LiveFixture(server: server, container: container))
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

/// The server settings tests change.
struct ServiceConfigurationEdit {
    var maximumOperationsPerRequest: Int?
}

extension ClientConfiguration {
    /// Short deadline, no real sleeping between retries.
    static var fastTests: ClientConfiguration {
        var configuration = ClientConfiguration()
        configuration.requestTimeout = TestTimeScale.scaled(.seconds(20))
        configuration.sleep = { _ in }
        configuration.random = { 0.5 }
        return configuration
    }
}

/// Records every request and answers from a closure: the one configurable fake transport.
final class FakeTransport: HTTPTransport {
    private let requests = Mutex<[TransportRequest]>([])
    private let respond: @Sendable (TransportRequest, Int) async throws -> TransportResponse

    init(_ respond: @escaping @Sendable (TransportRequest, Int) async throws -> TransportResponse) {
        self.respond = respond
    }

    /// Answers every request with `status` and a JSON body.
    convenience init(status: Int = 200, json: String, headers: [HTTPHeaderField] = []) {
        self.init { _, _ in TransportResponse(status: status, headers: headers, body: Data(json.utf8)) }
    }

    var sent: [TransportRequest] { requests.withLock { $0 } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let index = requests.withLock {
            $0.append(request)
            return $0.count - 1
        }
        return try await respond(request, index)
    }
}

/// Wraps a transport and records what goes through it.
final class RecordingTransport: HTTPTransport {
    let inner: any HTTPTransport
    private let log = Mutex<[(TransportRequest, Int)]>([])

    init(_ inner: any HTTPTransport) { self.inner = inner }

    var exchanges: [(request: TransportRequest, status: Int)] { log.withLock { $0.map { ($0.0, $0.1) } } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let started = ContinuousClock.now
        do {
            let response = try await inner.send(request)
            log.withLock { $0.append((request, response.status)) }
            return response
        } catch {
            failures.withLock { $0.append("\(request.method) \(request.url.path) after \(ContinuousClock.now - started): \(error)") }
            throw error
        }
    }

    private let failures = Mutex<[String]>([])

    /// What went through, one line per exchange (and per failed one), for a failing expectation's message.
    var summary: String {
        (exchanges.map { "\($0.request.method) \($0.request.url.path) → \($0.status)" } + failures.withLock { $0 }).joined(separator: "\n")
    }
}

/// Collects the waits a retry loop asked for.
final class SleepRecorder: Sendable {
    private let waits = Mutex<[Duration]>([])

    var recorded: [Duration] { waits.withLock { $0 } }

    var sleep: @Sendable (Duration) async throws -> Void {
        { [self] duration in waits.withLock { $0.append(duration) } }
    }
}

/// Parses a JSON body into a dictionary for assertions.
func jsonObject(_ data: Data) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

/// The body as canonical JSON text (sorted keys), for exact comparisons.
func canonicalJSON(_ data: Data) throws -> String {
    let object = try JSONSerialization.jsonObject(with: data)
    let sorted = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    return String(decoding: sorted, as: UTF8.self)
}

/// Canonical JSON of an encodable wire value.
func canonicalJSON(_ value: some Encodable) throws -> String {
    try canonicalJSON(try WireCoding.encode(value))
}
