import Foundation
import StratusHTTP
import StratusHTTPServer
import StratusLogging
import StratusTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Live tests: a real libmicrohttpd server on 127.0.0.1 and a free port, real sockets.
@Suite struct HTTPServerLiveTests {
    static func echoRouter(limit: Int = 8 << 20, handled: HitCounter? = nil) -> Router {
        var router = Router(maximumBodySize: limit)
        router.immediate(.get, "/health") { _ in .json(bytes: Data(#"{"status":"ok"}"#.utf8)) }
        router.route(.post, "/echo") { request in
            handled?.hit()
            return .json(bytes: Data(#"{"bytes":\#(request.body.count)}"#.utf8))
        }
        router.route(.post, "/json") { request in
            struct Body: Decodable { var name: String }
            let body = try request.decodeJSON(Body.self)
            return .text(body.name)
        }
        return router
    }

    /// A host that is no address is refused, and leaves nothing behind: the server was retained for
    /// libmicrohttpd before the address was checked, and never released.
    @Test func aRefusedAddressLeavesTheServerFree() {
        weak var released: HTTPServer?
        do {
            var configuration = HTTPServerConfiguration()
            configuration.host = "example.com"
            configuration.port = 0
            let server = HTTPServer(configuration: configuration, responder: Self.echoRouter(), logger: .disabled)
            released = server
            let error = #expect(throws: HTTPServerError.self) { try server.start() }
            #expect(error?.code == .invalidAddress)
        }
        #expect(released == nil, "the refused server is still retained")
    }

    /// A GET over URLSession reaches an immediate handler.
    @Test func healthAnswersOverRealSockets() async throws {
        let server = try TestHTTPServer(responder: Self.echoRouter())
        let (data, response) = try await URLSession.shared.data(from: server.url("/health"))
        await server.stop()
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == #"{"status":"ok"}"#)
    }

    /// A 2 MB body arrives whole at an async handler.
    @Test func twoMegabyteBodyArrivesWhole() async throws {
        let server = try TestHTTPServer(responder: Self.echoRouter())
        var request = URLRequest(url: server.url("/echo"))
        request.httpMethod = "POST"
        let (data, response) = try await URLSession.shared.upload(for: request, from: Data(repeating: 0x61, count: 2 << 20))
        await server.stop()
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == #"{"bytes":2097152}"#)
    }

    /// A declared body over the limit is refused with 413 (read and thrown away first), and the handler never runs.
    @Test func declaredOversizeBodyIsRefusedWith413() async throws {
        let handled = HitCounter()
        let server = try TestHTTPServer(responder: Self.echoRouter(limit: 1024, handled: handled))
        let reply = try await RawHTTPConnection.exchange(
            port: server.port,
            "POST /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5000\r\n\r\n" + String(repeating: "a", count: 5000)
        )
        await server.stop()
        #expect(reply.status == 413)
        let body = try jsonObject(reply.body)
        #expect(body["serverErrorCode"] as? String == "BAD_REQUEST")
        #expect((body["reason"] as? String)?.contains("1024 bytes") == true)
        #expect(handled.count == 0)
    }

    /// A chunked body that grows over the limit is discarded and refused with 413.
    @Test func chunkedOversizeBodyIsRefusedWith413() async throws {
        let handled = HitCounter()
        let server = try TestHTTPServer(responder: Self.echoRouter(limit: 1024, handled: handled))
        let chunk = String(repeating: "b", count: 800)
        let chunked = "320\r\n\(chunk)\r\n320\r\n\(chunk)\r\n0\r\n\r\n"
        let reply = try await RawHTTPConnection.exchange(
            port: server.port,
            "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunked
        )
        await server.stop()
        #expect(reply.status == 413)
        #expect(handled.count == 0)
    }

    /// A body cut short (the client hangs up) never reaches a handler, and the server keeps serving.
    @Test func truncatedBodyNeverReachesAHandler() async throws {
        let handled = HitCounter()
        // libmicrohttpd does not always notice a hang-up in the middle of a body; the idle
        // timeout is what reclaims such a connection, so keep it short here.
        let server = try TestHTTPServer(responder: Self.echoRouter(handled: handled)) { $0.connectionTimeout = 1 }
        try await RawHTTPConnection.sendAndHangUp(port: server.port, "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"name\":")
        let after = try await RawHTTPConnection.exchange(port: server.port, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(after.status == 200)
        #expect(handled.count == 0)
        // The abandoned request is released once libmicrohttpd sees the hang-up.
        let deadline = ContinuousClock.now + .seconds(5)
        while server.server.inFlightRequests > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(server.server.inFlightRequests == 0)
        await server.stop()
    }

    /// Invalid UTF-8 in a JSON body is a 400 BAD_REQUEST that says the body is malformed.
    @Test func invalidUTF8BodyIs400() async throws {
        let server = try TestHTTPServer(responder: Self.echoRouter())
        var bytes = Data("POST /json HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 14\r\nConnection: close\r\n\r\n".utf8)
        bytes.append(contentsOf: [0x7B, 0x22, 0x6E, 0x61, 0x6D, 0x65, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0xFF, 0x22, 0x7D])
        let reply = try await RawHTTPConnection.exchange(port: server.port, bytes: bytes)
        await server.stop()
        #expect(reply.status == 400)
        let body = try jsonObject(reply.body)
        #expect(body["serverErrorCode"] as? String == "BAD_REQUEST")
        #expect((body["reason"] as? String)?.contains("malformed JSON") == true)
    }

    /// Deeply nested JSON is refused with a 400 and the server survives.
    @Test func deeplyNestedJSONIs400() async throws {
        let server = try TestHTTPServer(responder: Self.echoRouter())
        let deep = String(repeating: "[", count: 200_000) + String(repeating: "]", count: 200_000)
        let reply = try await RawHTTPConnection.exchange(
            port: server.port, "POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: \(deep.utf8.count)\r\nConnection: close\r\n\r\n" + deep
        )
        let after = try await RawHTTPConnection.exchange(port: server.port, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        await server.stop()
        #expect(reply.status == 400)
        #expect(after.status == 200)
    }

    /// A wrong method is a 405 over the wire too.
    @Test func wrongMethodIs405() async throws {
        let server = try TestHTTPServer(responder: Self.echoRouter())
        let reply = try await RawHTTPConnection.exchange(port: server.port, "DELETE /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        await server.stop()
        #expect(reply.status == 405)
        #expect(reply.head.contains("Allow: GET"))
    }

    /// An unknown path is CloudKit's 404 over the wire.
    @Test func unknownPathIs404() async throws {
        let server = try TestHTTPServer(responder: Self.echoRouter())
        let reply = try await RawHTTPConnection.exchange(
            port: server.port, "POST /database/1/x HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await server.stop()
        #expect(reply.status == 404)
        #expect(String(decoding: reply.body, as: UTF8.self).contains("could not find handler for endpoint"))
    }

    /// 200 connections are parked at once by async handlers (no thread each), then all answered.
    @Test func twoHundredConcurrentConnectionsAreAllParkedAndAnswered() async throws {
        let gate = Gate(count: 200)
        var router = Router()
        router.route(.get, "/wait") { _ in
            let position = await gate.arrive()
            return .text(String(position))
        }
        // Every test client is 127.0.0.1, so the per-address limit (128 by default) is lifted here.
        let server = try TestHTTPServer(responder: router) { $0.perAddressConnectionLimit = 0 }
        let statuses = try await withThrowingTaskGroup(of: Int?.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    try await RawHTTPConnection.exchange(
                        port: server.port, "GET /wait HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", timeout: 30
                    ).status
                }
            }
            return try await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        await server.stop()
        #expect(statuses.count == 200)
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses.map { $0.map(String.init) ?? "nil" })")
        #expect(await gate.arrivals == 200)
    }

    /// A parked request is answered when another request wakes it: a long-poll holds no thread.
    @Test func longPollIsWokenByAnotherRequest() async throws {
        let signal = Signal()
        var router = Router()
        router.route(.get, "/poll") { _ in
            await signal.wait()
            return .text("event")
        }
        router.route(.post, "/event") { _ in
            await signal.fire()
            return .text("sent")
        }
        // One event-loop thread: the poll must not occupy it while parked.
        let server = try TestHTTPServer(responder: router) { $0.threadPoolSize = 1 }
        async let poll = RawHTTPConnection.exchange(port: server.port, "GET /poll HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        try await Task.sleep(for: .milliseconds(100))
        let sent = try await RawHTTPConnection.exchange(port: server.port, "POST /event HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        let polled = try await poll
        await server.stop()
        #expect(sent.status == 200, "\(String(decoding: sent.raw, as: UTF8.self))")
        #expect(String(decoding: polled.body, as: UTF8.self) == "event")
    }

    /// Shutdown lets an in-flight request finish and then refuses new connections.
    @Test func shutdownLetsInFlightRequestsFinish() async throws {
        let started = Signal()
        let release = Signal()
        var router = Router()
        router.route(.post, "/slow") { _ in
            await started.fire()
            await release.wait()
            return .text("finished")
        }
        let server = try TestHTTPServer(responder: router)
        let port = server.port
        async let slow = RawHTTPConnection.exchange(port: port, "POST /slow HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await started.wait()
        async let stopped: Void = server.stop(gracePeriod: .seconds(10))
        try await Task.sleep(for: .milliseconds(100))
        await release.fire()
        let reply = try await slow
        await stopped
        #expect(reply.status == 200)
        #expect(String(decoding: reply.body, as: UTF8.self) == "finished")
        await #expect(throws: (any Error).self) {
            try await RawHTTPConnection.exchange(port: port, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n", timeout: 2)
        }
    }

    /// Binding a port that is taken fails with a clear error.
    @Test func bindingATakenPortFails() async throws {
        let first = try TestHTTPServer(responder: Self.echoRouter())
        #expect(throws: HTTPServerError.self) {
            try TestHTTPServer(responder: Self.echoRouter()) { $0.port = first.port }
        }
        await first.stop()
    }
}
