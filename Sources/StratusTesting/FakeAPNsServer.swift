import Foundation
public import StratusWire

/// A fake APNs provider API on loopback: the Python program `Scripts/fake-apns/fake_apns.py` (on
/// `h2` and `cryptography` from PyPI, installed by `Scripts/fake-apns.sh` into `.build/`), run as a
/// child process.
///
/// It speaks HTTP/2 over TLS with a test CA it makes at start, holds an APNs signing key whose
/// `.p8` file it writes, verifies each push as APNs would (the provider token's ES256 signature
/// with the key's public half, `kid`, `iss`, `iat`, path, topic, push type, priority, payload),
/// records it, and answers as the test scripted for the device token (200 otherwise).
///
/// ```swift
/// let fake = try await FakeAPNsServer.start()
/// defer { fake.stop() }
/// try await fake.script(token: token, [.status(429), .status(503)])
/// let pushes = try await fake.pushes(atLeast: 3, timeout: .seconds(5))
/// ```
public final class FakeAPNsServer: Sendable {
    /// The TLS port of the provider API.
    public let port: UInt16
    /// The plain HTTP control port (scripts, received pushes).
    public let controlPort: UInt16
    /// The test CA's certificate (PEM) to trust.
    public let caFile: String
    /// The APNs signing key (PKCS #8 PEM, like `AuthKey_KEYID.p8`).
    public let keyFile: String
    /// The key's ID (`kid`).
    public let keyID: String
    /// The team ID (`iss`).
    public let teamID: String
    /// The topic pushes must name.
    public let topic: String
    private let directory: TemporaryDirectory
    private let process: SpawnedProcess
    private let client = LoopbackHTTPClient()

    private init(ready: Ready, directory: TemporaryDirectory, process: SpawnedProcess) {
        port = ready.port
        controlPort = ready.control_port
        caFile = ready.ca
        keyFile = ready.key
        keyID = ready.key_id
        teamID = ready.team_id
        topic = ready.topic
        self.directory = directory
        self.process = process
    }

    private struct Ready: Decodable {
        var port: UInt16
        var control_port: UInt16
        var ca: String
        var key: String
        var key_id: String
        var team_id: String
        var topic: String
    }

    /// The package root (this file is Sources/StratusTesting/FakeAPNsServer.swift under it).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The virtual environment's interpreter.
    public static var python: String { packageRoot.appendingPathComponent(".build/fake-apns-venv/bin/python3").path }

    /// Whether tests of APNs delivery run: the environment is installed, or it is required
    /// (`STRATUS_REQUIRE_FAKE_APNS=1`, set by `make test`), in which case a missing one fails them.
    public static var isEnabled: Bool {
        FileManager.default.isExecutableFile(atPath: python) || ProcessInfo.processInfo.environment["STRATUS_REQUIRE_FAKE_APNS"] == "1"
    }

    /// The provider API's base URL (`--apns-endpoint`).
    public var endpoint: String { "https://127.0.0.1:\(port)" }

    /// Starts a fake server and waits until it listens.
    ///
    /// - Parameters:
    ///   - topic: The `apns-topic` every push must carry.
    ///   - keyID: The signing key's ID.
    ///   - teamID: The team ID.
    /// - Throws: ``TestServerFailure`` when the Python environment is missing or the server does not start.
    public static func start(
        topic: String = "com.example.Tests", keyID: String = "FAKEKEY001", teamID: String = "FAKETEAM01"
    ) async throws
        -> FakeAPNsServer
    {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw TestServerFailure(
                description: "the fake APNs server's Python environment is missing at \(python); run Scripts/fake-apns.sh install (make test does)")
        }
        let directory = try TemporaryDirectory(prefix: "fake-apns")
        let script = packageRoot.appendingPathComponent("Scripts/fake-apns/fake_apns.py").path
        let process = try SpawnedCommand.start(
            python, [script, "--dir", directory.path, "--topic", topic, "--key-id", keyID, "--team-id", teamID, "--parent", String(getpid())],
            environment: ["PATH": "/usr/bin:/bin"], standardOutput: directory.path("stdout"), standardError: directory.path("stderr")
        )
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let data = FileManager.default.contents(atPath: directory.path("ready.json")),
                let ready = try? JSONDecoder().decode(Ready.self, from: data)
            {
                return FakeAPNsServer(ready: ready, directory: directory, process: process)
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.signal(SIGKILL)
        let errors = (try? String(contentsOfFile: directory.path("stderr"), encoding: .utf8)) ?? ""
        throw TestServerFailure(description: "the fake APNs server did not start: \(errors)")
    }

    /// Stops the server (`SIGKILL`: a child spawned from a pool thread inherits its blocked
    /// `SIGTERM`, and the fake has nothing to save; the wait after it is immediate).
    public func stop() {
        process.signal(SIGKILL)
        _ = try? process.wait()
    }

    /// Appends scripted answers for pushes to `token`, used in order (then 200 again).
    public func script(token: String, _ responses: [FakeAPNsResponse]) async throws {
        let body = try JSONEncoder().encode(Script(token: token, responses: responses))
        _ = try await control("POST", "/script", body: body)
    }

    /// Forgets every push received and every script.
    public func reset() async throws {
        _ = try await control("POST", "/reset", body: Data("{}".utf8))
    }

    /// Every push received so far (from the `since`-th on), once at least `count` arrived in all or `timeout` passed.
    public func pushes(atLeast count: Int = 0, since: Int = 0, timeout: Duration = .seconds(30)) async throws -> [FakeAPNsPush] {
        let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        let target = "/pushes?min=\(count)&timeout_ms=\(milliseconds)&since=\(since)"
        let data = try await control("GET", target, body: nil, timeout: timeout + .seconds(10))
        return try JSONDecoder().decode(Received.self, from: data).pushes
    }

    /// How many TLS connections the provider API accepted so far.
    public func connectionCount() async throws -> Int {
        let data = try await control("GET", "/pushes?min=0&timeout_ms=0", body: nil)
        return try JSONDecoder().decode(Received.self, from: data).connections
    }

    private struct Script: Encodable {
        var token: String
        var responses: [FakeAPNsResponse]
    }

    private struct Received: Decodable {
        var pushes: [FakeAPNsPush]
        var connections: Int
    }

    private func control(_ method: String, _ target: String, body: Data?, timeout: Duration = .seconds(20)) async throws -> Data {
        guard let url = URL(string: "http://127.0.0.1:\(controlPort)\(target)") else { throw TestServerFailure(description: "bad control URL") }
        let (status, data) = try await client.send(method, url, body: body ?? Data(), timeout: timeout)
        guard status == 200 else {
            throw TestServerFailure(description: "fake APNs control \(method) \(target) failed")
        }
        return data
    }
}

/// One scripted answer of the fake APNs server.
public struct FakeAPNsResponse: Encodable, Sendable {
    var status: Int?
    var reason: String?
    var delay_ms: Int?
    var stall: Bool?
    var body: String?
    var body_size: Int?
    var expire_jwt: Bool?
    var timestamp: Int64?

    /// An answer with `status` and, for errors, APNs' `{"reason": …}`.
    public static func status(_ status: Int, reason: String? = nil, delay: Duration? = nil) -> FakeAPNsResponse {
        FakeAPNsResponse(
            status: status, reason: reason, delay_ms: delay.map { Int($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) })
    }

    /// `410 Unregistered`, with APNs' `timestamp` (now when not given).
    public static func unregistered(timestamp: Int64? = nil) -> FakeAPNsResponse {
        FakeAPNsResponse(status: 410, reason: "Unregistered", timestamp: timestamp)
    }

    /// `403 ExpiredProviderToken`, and the provider token used stays refused.
    public static let expireProviderToken = FakeAPNsResponse(expire_jwt: true)

    /// No answer at all: the stream stays open until the client gives up.
    public static let stall = FakeAPNsResponse(stall: true)

    /// `status` with a raw body (garbage, for instance).
    public static func raw(_ status: Int, body: String) -> FakeAPNsResponse {
        FakeAPNsResponse(status: status, body: body)
    }

    /// `status` with a body of `size` bytes.
    public static func huge(_ status: Int, size: Int) -> FakeAPNsResponse {
        FakeAPNsResponse(status: status, body_size: size)
    }
}

/// A push the fake APNs server received.
public struct FakeAPNsPush: Decodable, Sendable {
    /// The device token of the path.
    public var token: String
    /// The path.
    public var path: String
    /// The request headers (lowercase names), without pseudo-headers.
    public var headers: [String: String]
    /// The method.
    public var method: String?
    /// The JSON payload, if it parsed.
    public var payload: JSONValue?
    /// The provider token (JWT).
    public var jwt: String?
    /// What the server found wrong (a bad signature, a wrong header); empty when the push is as APNs wants it.
    public var problems: [String]
    /// The status it answered.
    public var status: Int
    /// When it arrived, in nanoseconds since 1970 (the wall clock).
    public var received_ns: UInt64
    /// Which TLS connection it came on (1, 2, …).
    public var connection: Int

    /// The payload decoded as a notification.
    public var notification: CourierNotification? {
        guard let payload, let data = try? WireCoding.encode(payload) else { return nil }
        return try? WireCoding.decode(CourierNotification.self, from: data)
    }
}
