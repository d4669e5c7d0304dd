#if os(Linux)
import Foundation
import FoundationNetworking
import StratusClient
import StratusHTTP
import StratusHTTPServer
import StratusTesting
import Synchronization
import Testing

/// The SDK's Linux transport (libcurl without URLSession) against real loopback servers: keep-alive,
/// redirects as URLSession, a private CA, and servers that do not play by the rules — each gives a
/// clear `URLError` in bounded time and memory, and cancellation and parked long-polls cost nothing.
@Suite struct CurlTransportTests {
    /// Answers every request on the connection with `200`, its body the request's body length and `ok`.
    static func keepAlive(_ connection: ScriptedSocketServer.Connection) {
        while let (head, body) = connection.readRequest() {
            let path = head.split(separator: " ").dropFirst().first ?? "?"
            let answer = "ok \(body.count) \(path)"
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(answer.utf8.count)\r\nX-Answer: yes\r\n\r\n\(answer)")
        }
    }

    @Test func requestsReuseOneConnectionAndCarryTheirBodies() async throws {
        let server = try ScriptedSocketServer(Self.keepAlive)
        defer { server.stop() }
        let transport = CurlTransport()
        for index in 0..<5 {
            let response = try await transport.send(
                TransportRequest(method: index.isMultiple(of: 2) ? "GET" : "POST", url: server.url("/r\(index)"), body: Data(count: index * 100)))
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "ok \(index * 100) /r\(index)")
            #expect(response[header: "x-answer"] == "yes")
        }
        #expect(server.connections == 1, "keep-alive: every request after the first reuses its connection")
    }

    @Test func aBodyPastTheLimitFailsWithoutBeingKept() async throws {
        let server = try ScriptedSocketServer { connection in
            guard let (head, _) = connection.readRequest() else { return }
            if head.contains("/declared") {
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 10000000000\r\n\r\n")
            } else {
                connection.write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
            }
            let chunk = Data(repeating: 0x41, count: 64 << 10)
            while connection.write(chunk) {}
        }
        defer { server.stop() }
        var configuration = CurlTransport.Configuration()
        configuration.maximumResponseBytes = 1 << 20
        let transport = try CurlTransport(configuration: configuration)
        for path in ["/endless", "/declared"] {
            let error = await #expect(throws: URLError.self) {
                _ = try await transport.send(TransportRequest(method: "GET", url: server.url(path), timeout: .seconds(20)))
            }
            #expect(error?.code == .dataLengthExceedsMaximum, "\(path): \(String(describing: error))")
            #expect(error?.localizedDescription.contains("more than 1048576 bytes") == true, "\(String(describing: error?.localizedDescription))")
        }
    }

    @Test func anEndlessHeaderFails() async throws {
        let server = try ScriptedSocketServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write("HTTP/1.1 200 OK\r\n")
            while connection.write("X-Padding: \(String(repeating: "a", count: 1000))\r\n") {}
        }
        defer { server.stop() }
        let error = await #expect(throws: URLError.self) {
            _ = try await CurlTransport().send(TransportRequest(method: "GET", url: server.url("/"), timeout: .seconds(20)))
        }
        #expect(error?.code == .dataLengthExceedsMaximum, "\(String(describing: error))")
        #expect(error?.localizedDescription.contains("bytes of headers") == true)
    }

    @Test func aMalformedStatusLineIsABadServerResponse() async throws {
        for garbage in ["HELLO THERE\r\n\r\n", "HTTP/1.1 twohundred OK\r\nContent-Length: 0\r\n\r\n", "\u{0}\u{1}\u{2}\r\n\r\n"] {
            let server = try ScriptedSocketServer { connection in
                guard connection.readRequest() != nil else { return }
                connection.write(garbage)
            }
            defer { server.stop() }
            let error = await #expect(throws: URLError.self) {
                _ = try await CurlTransport().send(TransportRequest(method: "GET", url: server.url("/"), timeout: .seconds(20)))
            }
            #expect(error?.code == .badServerResponse, "\(garbage.debugDescription): \(String(describing: error))")
        }
    }

    @Test func aSlowDripEndsAtTheDeadline() async throws {
        let server = try ScriptedSocketServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
            while connection.write("x") { Thread.sleep(forTimeInterval: 0.1) }
        }
        defer { server.stop() }
        let clock = ContinuousClock()
        let start = clock.now
        let error = await #expect(throws: URLError.self) {
            _ = try await CurlTransport().send(TransportRequest(method: "GET", url: server.url("/"), timeout: .milliseconds(800)))
        }
        #expect(error?.code == .timedOut)
        #expect(clock.now - start < .seconds(5), "the deadline is the whole exchange's, not an idle timeout")
    }

    @Test func cancellingTheTaskStopsTheTransferAndClosesItsConnection() async throws {
        let closed = ClosedFlag()
        let server = try ScriptedSocketServer { connection in
            guard connection.readRequest() != nil else { return }
            if connection.waitForClose() { closed.set() }
        }
        defer { server.stop() }
        let transport = CurlTransport()
        let task = Task { try await transport.send(TransportRequest(method: "GET", url: server.url("/never"), timeout: .seconds(60))) }
        try await Task.sleep(for: .milliseconds(300))
        let clock = ContinuousClock()
        let start = clock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(clock.now - start < .seconds(2))
        #expect(await eventually(timeout: .seconds(5)) { closed.isSet }, "the cancelled transfer's connection is closed")
        // A task cancelled before it sends sends nothing.
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transport.send(TransportRequest(method: "GET", url: server.url("/never")))
        }
        await #expect(throws: CancellationError.self) { _ = try await early.value }
        #expect(server.connections == 1)
    }

    @Test func aParkedLongPollLeavesTheThreadAsleep() async throws {
        let server = try ScriptedSocketServer { connection in
            while connection.readRequest() != nil {
                Thread.sleep(forTimeInterval: 1.5)
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
            }
        }
        defer { server.stop() }
        let transport = CurlTransport()
        let before = transport.wakeups
        // On a new connection: URLSession on Linux spins while such a request waits (LongPollConnectionTests).
        let response = try await transport.send(TransportRequest(method: "GET", url: server.url("/poll"), timeout: .seconds(20), isLongPoll: true))
        #expect(response.status == 200)
        #expect(transport.wakeups - before < 20, "\(transport.wakeups - before) wake-ups for one request parked 1.5 s")
    }

    @Test func anIdleTransportWithAnOpenConnectionLeavesTheThreadAsleep() async throws {
        let server = try ScriptedSocketServer(Self.keepAlive)
        defer { server.stop() }
        let transport = CurlTransport()
        _ = try await transport.send(TransportRequest(method: "GET", url: server.url("/once")))
        let before = transport.wakeups
        try await Task.sleep(for: .seconds(1))
        #expect(transport.wakeups - before < 5, "\(transport.wakeups - before) wake-ups in 1 s with nothing to do")
    }

    @Test func redirectsAreFollowedAsURLSessionFollowsThem() async throws {
        let server = try ScriptedSocketServer { connection in
            while let (head, _) = connection.readRequest() {
                if head.hasPrefix("GET /from ") {
                    connection.write("HTTP/1.1 302 Found\r\nLocation: /to\r\nContent-Length: 0\r\n\r\n")
                } else if head.hasPrefix("GET /loop ") {
                    connection.write("HTTP/1.1 302 Found\r\nLocation: /loop\r\nContent-Length: 0\r\n\r\n")
                } else {
                    connection.write("HTTP/1.1 200 OK\r\nContent-Length: 7\r\nX-Final: yes\r\n\r\narrived")
                }
            }
        }
        defer { server.stop() }
        let request = TransportRequest(method: "GET", url: server.url("/from"), timeout: .seconds(20))
        let viaSession = try await URLSessionTransport().send(request)
        let viaCurl = try await CurlTransport().send(request)
        #expect(viaCurl.status == viaSession.status)
        #expect(viaCurl.body == viaSession.body)
        #expect(viaCurl[header: "X-Final"] == "yes")
        let error = await #expect(throws: URLError.self) {
            _ = try await CurlTransport().send(TransportRequest(method: "GET", url: server.url("/loop"), timeout: .seconds(20)))
        }
        #expect(error?.code == .badServerResponse)
    }

    /// A server over TLS that redirects to plain http (a misconfigured proxy, or one that wants the body in
    /// clear): the transport refuses, and nothing reaches the plain-http address.
    @Test func anHTTPSRequestDoesNotFollowARedirectToPlainHTTP() async throws {
        let plain = try ScriptedSocketServer(Self.keepAlive)
        defer { plain.stop() }
        let scratch = try TemporaryDirectory(prefix: "stratus-curl-downgrade")
        defer { scratch.remove() }
        let identity = try await TestCertificate.make(in: scratch.url, name: "private")
        let target = plain.url("/stolen").absoluteString
        let server = try TestHTTPServer(responder: Redirect(location: target)) { configuration in
            configuration.tls = try? TLSIdentity(certificateFile: identity.certificate, keyFile: identity.key)
        }
        try await stoppingAfterUse(server, stop: { await $0.stop() }) { server in
            let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/modify"))
            let transport = try CurlTransport(configuration: .init(trustedCAFile: identity.certificate.path))
            let error = await #expect(throws: URLError.self) {
                _ = try await transport.send(TransportRequest(method: "POST", url: url, body: Data("private record".utf8), timeout: .seconds(20)))
            }
            #expect(error?.code == .badServerResponse, "\(String(describing: error))")
            #expect(plain.connections == 0, "the request went to the plain-http address")
            let followed = try await CurlTransport().send(TransportRequest(method: "GET", url: plain.url("/first"), timeout: .seconds(20)))
            #expect(followed.status == 200, "a plain-http request still works")
        }
    }

    @Test func aPrivateCAIsTrustedOnlyWhenGiven() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-curl-tls")
        defer { scratch.remove() }
        let identity = try await TestCertificate.make(in: scratch.url, name: "private")
        let server = try TestHTTPServer(responder: Hello()) { configuration in
            configuration.tls = try? TLSIdentity(certificateFile: identity.certificate, keyFile: identity.key)
        }
        try await stoppingAfterUse(server, stop: { await $0.stop() }) { server in
            let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/hello"))
            let trusting = try CurlTransport(configuration: .init(trustedCAFile: identity.certificate.path))
            let response = try await trusting.send(TransportRequest(method: "GET", url: url))
            #expect(response.status == 200 && response.body == Data("hello".utf8))
            let error = await #expect(throws: URLError.self) {
                _ = try await CurlTransport().send(TransportRequest(method: "GET", url: url))
            }
            #expect(error?.code == .secureConnectionFailed, "\(String(describing: error))")
            #expect(throws: URLError.self) { _ = try CurlTransport(configuration: .init(trustedCAFile: identity.key.path + ".missing")) }
        }
    }

    @Test func aClosedPortCannotConnect() async throws {
        let server = try ScriptedSocketServer { _ in }
        server.stop()
        let error = await #expect(throws: URLError.self) {
            _ = try await CurlTransport().send(TransportRequest(method: "GET", url: server.url("/"), timeout: .seconds(10)))
        }
        #expect(error?.code == .cannotConnectToHost)
    }
}

/// Answers `hello`.
private struct Hello: HTTPResponder {
    func maximumBodySize(method: HTTPMethod, path: String) -> Int { 1 << 10 }

    func respond(to request: HTTPRequest) -> HTTPReply {
        .now(HTTPResponse(status: .ok, body: Data("hello".utf8)))
    }

    func reject(_ request: HTTPRequest, with error: HTTPError) -> HTTPResponse { error.response(requestID: request.requestID) }
}

/// Answers every request with `307 Temporary Redirect` to `location` (the method and body go along).
private struct Redirect: HTTPResponder {
    var location: String

    func maximumBodySize(method: HTTPMethod, path: String) -> Int { 1 << 10 }

    func respond(to request: HTTPRequest) -> HTTPReply {
        .now(HTTPResponse(status: HTTPStatus(code: 307), headers: ["Location": location]))
    }

    func reject(_ request: HTTPRequest, with error: HTTPError) -> HTTPResponse { error.response(requestID: request.requestID) }
}

/// Set once, from any thread.
private final class ClosedFlag: Sendable {
    private let flag = Atomic(false)
    var isSet: Bool { flag.load(ordering: .sequentiallyConsistent) }
    func set() { flag.store(true, ordering: .sequentiallyConsistent) }
}
#endif
