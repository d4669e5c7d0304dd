import Foundation
import StratusClient
import StratusHTTP
import StratusTesting
import Synchronization
import Testing

/// A long-poll parks on a connection that is already open (issue 22, #13): on Linux, URLSession spins a
/// core while a request on a *new* connection waits for its answer. `URLSessionTransport` opens one with
/// a `HEAD /` first, once; later polls reuse the previous poll's connection.
@Suite struct LongPollConnectionTests {
    @Test func aLongPollOpensItsConnectionWithOneShortRequestFirst() async throws {
        let seen = RequestLog()
        let server = try TestHTTPServer(responder: ParkingResponder(seen: seen))
        try await stoppingAfterUse(server, stop: { await $0.stop() }) { server in
            let transport = URLSessionTransport()
            for _ in 0..<3 {
                let response = try await transport.send(
                    TransportRequest(method: "GET", url: server.url("/poll"), timeout: TestTimeScale.scaled(.seconds(20)), isLongPoll: true))
                #expect(response.status == 200)
            }
            _ = try await transport.send(TransportRequest(method: "GET", url: server.url("/plain")))
            #expect(seen.lines == ["HEAD /", "GET /poll", "GET /poll", "GET /poll", "GET /plain"])
        }
    }

    @Test func aFailedPollOpensANewConnectionTheSameWay() async throws {
        let seen = RequestLog()
        let server = try TestHTTPServer(responder: ParkingResponder(seen: seen))
        try await stoppingAfterUse(server, stop: { await $0.stop() }) { server in
            let transport = URLSessionTransport()
            _ = try await transport.send(
                TransportRequest(method: "GET", url: server.url("/poll"), timeout: TestTimeScale.scaled(.seconds(20)), isLongPoll: true))
            await #expect(throws: (any Error).self) {
                _ = try await transport.send(TransportRequest(method: "GET", url: server.url("/poll"), timeout: .milliseconds(100), isLongPoll: true))
            }
            _ = try await transport.send(
                TransportRequest(method: "GET", url: server.url("/poll"), timeout: TestTimeScale.scaled(.seconds(20)), isLongPoll: true))
            #expect(seen.lines.filter { $0 == "HEAD /" }.count == 2, "\(seen.lines)")
        }
    }
}

/// The requests a server saw, as `METHOD path`.
private final class RequestLog: Sendable {
    private let seen = Mutex<[String]>([])
    var lines: [String] { seen.withLock { $0 } }
    func append(_ line: String) { seen.withLock { $0.append(line) } }
}

/// Answers `GET /poll` after holding it 300 ms (a parked long-poll), anything else at once; records each request.
private struct ParkingResponder: HTTPResponder {
    let seen: RequestLog

    func maximumBodySize(method: HTTPMethod, path: String) -> Int { 1 << 20 }

    func respond(to request: HTTPRequest) -> HTTPReply {
        seen.append("\(request.method) \(request.path)")
        guard request.path == "/poll" else { return .now(HTTPResponse(status: .ok)) }
        return .later {
            try? await Task.sleep(for: .milliseconds(300))
            return HTTPResponse(status: .ok)
        }
    }

    func reject(_ request: HTTPRequest, with error: HTTPError) -> HTTPResponse { error.response(requestID: request.requestID) }
}
