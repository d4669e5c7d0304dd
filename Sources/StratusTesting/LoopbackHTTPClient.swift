import Foundation
import StratusClient

/// The HTTP client of the test support's own requests (a test server's `post`, an asset upload,
/// the fake APNs server's control calls): the SDK's ``URLSessionTransport``, one session per
/// server, so no request of the test support waits on Swift's cooperative pool for URLSession's
/// queue (`URLSession.shared` did: `URLSessionTask.resume()` blocks its caller on Linux) and no two
/// servers share a connection pool.
///
/// Internal to the test support: the benchmarks' `LoopbackHTTPClient` (BenchSupport) is another tool
/// under the same name — a blocking raw-socket client that measures the server — and a benchmark
/// importing both modules (PushBench) must see only that one.
///
/// ```swift
/// let client = LoopbackHTTPClient()
/// let (status, body) = try await client.send("POST", server.url("zones/list"), body: Data("{}".utf8))
/// ```
struct LoopbackHTTPClient: Sendable {
    private let transport = URLSessionTransport()

    /// Makes a client with a session of its own.
    init() {}

    /// Sends one request and returns the status and body.
    ///
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - url: Where to (a loopback server).
    ///   - body: The body; empty for none.
    ///   - timeout: The request's deadline on an ordinary build (``TestTimeScale`` stretches it).
    /// - Returns: The status code and the body.
    /// - Throws: What the transport throws (a refused connection, the deadline).
    func send(_ method: String, _ url: URL, body: Data = Data(), timeout: Duration = .seconds(60)) async throws -> (status: Int, body: Data) {
        let response = try await transport.send(
            TransportRequest(method: method, url: url, body: body, timeout: TestTimeScale.scaled(timeout)))
        return (response.status, response.body)
    }
}
