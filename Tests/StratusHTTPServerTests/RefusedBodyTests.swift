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

    /// The head of a `POST` to `path` declaring `length` bytes of body.
    static func head(declaring length: Int, to path: String = "/echo", expectContinue: Bool = false, close: Bool = true) -> String {
        "POST \(path) HTTP/1.1\r\nHost: x\r\n" + (close ? "Connection: close\r\n" : "") + (expectContinue ? "Expect: 100-continue\r\n" : "")
            + "Content-Length: \(length)\r\n\r\n"
    }

    /// 7 MiB sent without asking first, to a route that takes 1 KiB: the server reads and throws
    /// the body away, then answers 413. Without that, it answered and closed with the body unread,
    /// and the client, still sending, got a reset and no status (its send of 4 MiB stopped at ~2 MiB).
    @Test func anOversizeBodySentWithoutAskingIsReadAndAnswered413() async throws {
        let handled = HitCounter()
        let server = try TestHTTPServer(responder: HTTPServerLiveTests.echoRouter(limit: Self.limit, handled: handled))
        let body = Data(repeating: 0x61, count: 7 << 20)  // under the 8 MiB bound, over what loopback buffers hold
        let socket = try LoopbackSocket(port: server.port)
        let sent = try await socket.send(Data(Self.head(declaring: body.count).utf8) + body)
        let reply = try await socket.receiveUntilClosed()
        socket.close()
        await server.stop()
        #expect(sent == Self.head(declaring: body.count).utf8.count + body.count, "the server stopped reading")
        #expect(reply.status == 413, "got \(reply.raw.count) bytes: \(String(decoding: reply.raw.prefix(200), as: UTF8.self))")
        #expect(handled.count == 0)
    }

    /// The answer after a discarded body closes the connection: a refused client does not keep
    /// it to send more refused bodies. A request pipelined behind is not answered.
    @Test func theAnswerAfterADiscardedBodyClosesTheConnection() async throws {
        let server = try TestHTTPServer(responder: HTTPServerLiveTests.echoRouter(limit: Self.limit))
        let socket = try LoopbackSocket(port: server.port)
        let body = String(repeating: "a", count: 5000)
        let keepAlive = Self.head(declaring: body.utf8.count, close: false)
        try await socket.send(Data((keepAlive + body + "GET /health HTTP/1.1\r\nHost: x\r\n\r\n").utf8))
        let reply = try await socket.receiveUntilClosed()
        socket.close()
        await server.stop()
        let text = String(decoding: reply.raw, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 413"))
        #expect(text.lowercased().contains("connection: close"))
        #expect(!text.contains("HTTP/1.1 200"), "\(text.prefix(400))")
    }

    /// A head check that parks and then refuses a small body: the body is read and thrown away,
    /// and the client reads the 401 (the path of every CloudKit route's credential check).
    @Test func aParkedRefusalOfASmallBodyIsAnsweredAfterIt() async throws {
        let handled = HitCounter()
        let server = try TestHTTPServer(responder: HeadCheckLiveTests.router(handled: handled) { _ in .later { throw HeadCheckLiveTests.refusal } })
        let (reply, sent) = try await HeadCheckLiveTests.startUpload(port: server.port, declared: 2 << 20, sending: 2 << 20)
        await server.stop()
        #expect(reply.status == 401)
        #expect(sent > 2 << 20)
        #expect(handled.count == 0)
    }

    /// After a park, `Expect: 100-continue` does not hold the body back (curl stops waiting after a
    /// second): a client that sent its body anyway reads the refusal, not a reset.
    @Test func aParkedRefusalReadsTheBodyOfAClientThatStoppedWaiting() async throws {
        let server = try TestHTTPServer(
            responder: HeadCheckLiveTests.router(handled: HitCounter()) { _ in
                .later {
                    try await Task.sleep(for: .milliseconds(300))
                    throw HeadCheckLiveTests.refusal
                }
            }
        ) { $0.maximumDiscardedBodyBytes = 64 << 20 }
        let socket = try LoopbackSocket(port: server.port)
        // More than loopback's socket buffers hold: a server that closes early stops the send.
        let length = 32 << 20
        let head = Self.head(declaring: length, to: "/upload/t1", expectContinue: true)
        let sent = try await socket.send(Data(head.utf8) + Data(repeating: 0x61, count: length))
        let reply = try await socket.receiveUntilClosed()
        socket.close()
        await server.stop()
        let text = String(decoding: reply.raw, as: UTF8.self)
        #expect(text.contains("HTTP/1.1 401"), "got \(reply.raw.count) bytes: \(text.prefix(200))")
        #expect(sent == head.utf8.count + length)
    }

    /// A streamed body its sink refuses far from its declared end is cut off at once, not read
    /// for another `maximumDiscardedBodyBytes`.
    @Test func aDeclaredBodyRefusedFarFromItsEndIsCutOffAtOnce() async throws {
        let sink = HeadCheckLiveTests.CountingSink(limit: 1024)
        let server = try TestHTTPServer(responder: HeadCheckLiveTests.router(handled: HitCounter()) { _ in .stream(sink) }) {
            $0.maximumDiscardedBodyBytes = 48 << 20
        }
        let (_, sent) = try await HeadCheckLiveTests.startUpload(port: server.port, declared: 64 << 20, sending: 64 << 20)
        await server.stop()
        // Cut off at once, the send stops within what loopback buffers hold; read on to the bound, past 48 MiB.
        #expect(sent < 32 << 20, "\(sent) bytes were read")
        #expect(sink.closed && !sink.finished)
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
