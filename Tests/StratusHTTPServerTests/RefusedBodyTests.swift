import Foundation
import StratusHTTP
import StratusHTTPServer
import StratusTesting
import Testing

/// A request refused from its head (a body over the limit) whose client sends the body anyway:
/// the client must read the answer, not a connection reset, and a refused body is never read
/// without end.
@Suite struct RefusedBodyTests {
    static let limit = 1024

    static func head(declaring length: Int, expectContinue: Bool = false) -> String {
        "POST /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: \(length)\r\n" + (expectContinue ? "Expect: 100-continue\r\n" : "") + "\r\n"
    }

    /// 4 MiB sent without asking first, to a route that takes 1 KiB: the server reads and throws
    /// the body away, then answers 413. Without that, it answered and closed with the body unread,
    /// and the client, still sending, got a reset and no status.
    @Test func anOversizeBodySentWithoutAskingIsReadAndAnswered413() async throws {
        let handled = HitCounter()
        let server = try TestHTTPServer(responder: HTTPServerLiveTests.echoRouter(limit: Self.limit, handled: handled))
        let body = Data(repeating: 0x61, count: 4 << 20)
        let socket = try LoopbackSocket(port: server.port)
        let sent = try await socket.send(Data(Self.head(declaring: body.count).utf8) + body)
        let reply = try await socket.receiveUntilClosed()
        socket.close()
        await server.stop()
        #expect(sent == Self.head(declaring: body.count).utf8.count + body.count, "the server stopped reading")
        #expect(reply.status == 413, "got \(reply.raw.count) bytes: \(String(decoding: reply.raw.prefix(200), as: UTF8.self))")
        #expect(handled.count == 0)
    }

    /// The connection stays usable after the discarded body: the next request on it is answered.
    @Test func theConnectionServesTheNextRequestAfterADiscardedBody() async throws {
        let server = try TestHTTPServer(responder: HTTPServerLiveTests.echoRouter(limit: Self.limit))
        let socket = try LoopbackSocket(port: server.port)
        let body = String(repeating: "a", count: 5000)
        let keepAlive = "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        try await socket.send(Data((keepAlive + body + "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").utf8))
        let reply = try await socket.receiveUntilClosed()
        socket.close()
        await server.stop()
        let text = String(decoding: reply.raw, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 413"))
        #expect(text.contains("HTTP/1.1 200"), "\(text.prefix(400))")
    }

    /// A client that asks first (`Expect: 100-continue`) gets the 413 from the head alone, no
    /// `100 Continue`, and need send nothing more.
    @Test func aClientThatAsksFirstIsAnsweredFromTheHead() async throws {
        let server = try TestHTTPServer(responder: HTTPServerLiveTests.echoRouter(limit: Self.limit))
        let socket = try LoopbackSocket(port: server.port)
        try await socket.send(Data(Self.head(declaring: 4 << 20, expectContinue: true).utf8))
        let reply = try await socket.receiveUntilClosed()
        socket.close()
        await server.stop()
        #expect(reply.status == 413)
        #expect(!String(decoding: reply.raw, as: UTF8.self).contains("100 Continue"))
    }

    /// A declared body larger than the server throws away is answered from the head at once (the
    /// connection then closes): the server does not read gigabytes to say no.
    @Test func aBodyLargerThanTheDiscardLimitIsAnsweredAtOnce() async throws {
        let server = try TestHTTPServer(responder: HTTPServerLiveTests.echoRouter(limit: Self.limit)) { $0.maximumDiscardedBodyBytes = 64 << 10 }
        let socket = try LoopbackSocket(port: server.port)
        try await socket.send(Data(Self.head(declaring: 1 << 30).utf8))
        let reply = try await socket.receiveUntilClosed()
        socket.close()
        await server.stop()
        #expect(reply.status == 413)
    }

    /// A chunked body that passes the limit while it is read is thrown away only up to the
    /// discard limit; past it the connection is closed, not read on for as long as the client sends.
    @Test func aChunkedBodyPastTheDiscardLimitIsCutOff() async throws {
        let handled = HitCounter()
        let server = try TestHTTPServer(responder: HTTPServerLiveTests.echoRouter(limit: Self.limit, handled: handled)) {
            $0.maximumDiscardedBodyBytes = 64 << 10
        }
        let socket = try LoopbackSocket(port: server.port)
        let chunk = "4000\r\n" + String(repeating: "b", count: 0x4000) + "\r\n"
        var stream = Data("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for _ in 0..<(64 << 20) / 0x4000 { stream.append(contentsOf: chunk.utf8) }
        let sent = try await socket.send(stream)
        socket.close()
        #expect(sent < stream.count, "64 MiB were read; the server should have stopped past 64 KiB")
        let after = try await RawHTTPConnection.exchange(port: server.port, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        await server.stop()
        #expect(after.status == 200)
        #expect(handled.count == 0)
    }
}
