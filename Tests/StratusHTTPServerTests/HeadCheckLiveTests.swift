import Foundation
import StratusHTTP
import StratusHTTPServer
import StratusTesting
import Synchronization
import Testing

/// Live tests of route head checks: refusals before any body byte is read, decisions that need
/// a task, bodies streamed to a sink, and the total of bodies held in memory.
@Suite struct HeadCheckLiveTests {
    /// A sink that counts what it is given, up to a limit.
    final class CountingSink: HTTPBodySink {
        let limit: Int
        private let state = Mutex((bytes: 0, finished: false, closed: false))

        init(limit: Int = .max) { self.limit = limit }

        var bytes: Int { state.withLock { $0.bytes } }
        var finished: Bool { state.withLock { $0.finished } }
        var closed: Bool { state.withLock { $0.closed } }

        func write(_ bytes: UnsafeRawBufferPointer) throws(HTTPError) {
            let total = state.withLock { state -> Int in
                state.bytes += bytes.count
                return state.bytes
            }
            if total > limit { throw HTTPError.bodyTooLarge(limit: limit) }
        }

        func finish() throws(HTTPError) { state.withLock { $0.finished = true } }
        func close() { state.withLock { $0.closed = true } }
    }

    static let refusal = HTTPError(status: .unauthorized, serverErrorCode: "AUTHENTICATION_FAILED", reason: "authentication failed")

    static func router(handled: HitCounter, check: @escaping Router.HeadCheck) -> Router {
        var router = Router(maximumBodySize: 64 << 20)
        router.route(.post, "/upload/{ticket}", check: check) { request in
            handled.hit()
            let streamed = (request.bodySink as? CountingSink)?.bytes
            return .json(bytes: Data(#"{"bytes":\#(streamed ?? request.body.count),"ticket":"\#(request.parameters["ticket"] ?? "")"}"#.utf8))
        }
        return router
    }

    /// Sends the head of a large upload and a first piece of its body, then reads the answer.
    ///
    /// The read waits for the server to answer and close; its receive timeout (60 s, stretched
    /// under a sanitizer) is only a guard against a hang. It was 10 s, and on a loaded machine a
    /// refusal took longer than that to arrive (`recv: Resource temporarily unavailable`).
    static func startUpload(port: UInt16, declared: Int, sending first: Int) async throws -> (reply: RawHTTPConnection.Reply, sent: Int) {
        let socket = try LoopbackSocket(port: port, timeout: 60)
        defer { socket.close() }
        let head = "POST /upload/t1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: \(declared)\r\n\r\n"
        let sent = try await socket.send(Data(head.utf8) + Data(repeating: 0x61, count: first))
        return (try await socket.receiveUntilClosed(), sent)
    }

    @Test func aHeadCheckRefusesBeforeTheBodyIsRead() async throws {
        let handled = HitCounter()
        let server = try TestHTTPServer(responder: Self.router(handled: handled) { _ in throw Self.refusal })
        let (reply, _) = try await Self.startUpload(port: server.port, declared: 50 << 20, sending: 16 << 10)
        await server.stop()
        #expect(reply.status == 401)
        #expect(String(decoding: reply.body, as: UTF8.self).contains("AUTHENTICATION_FAILED"))
        #expect(handled.count == 0)
    }

    @Test func aHeadCheckThatNeedsATaskRefusesBeforeTheBodyIsRead() async throws {
        let handled = HitCounter()
        let server = try TestHTTPServer(
            responder: Self.router(handled: handled) { _ in
                .later {
                    await Task.yield()
                    throw Self.refusal
                }
            }
        )
        let (reply, _) = try await Self.startUpload(port: server.port, declared: 50 << 20, sending: 16 << 10)
        await server.stop()
        #expect(reply.status == 401)
        #expect(handled.count == 0)
    }

    @Test func aHeadCheckThatNeedsATaskAdmitsAndTheBodyArrivesWhole() async throws {
        let handled = HitCounter()
        let checked = HitCounter()
        let server = try TestHTTPServer(
            responder: Self.router(handled: handled) { head in
                #expect(head.parameters["ticket"] == "t1")
                return .later {
                    await Task.yield()
                    checked.hit()
                    return .admit
                }
            }
        )
        let body = Data(repeating: 0x62, count: 300 << 10)
        let reply = try await RawHTTPConnection.exchange(
            port: server.port, bytes: Data("POST /upload/t1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
        )
        await server.stop()
        #expect(reply.status == 200)
        #expect(String(decoding: reply.body, as: UTF8.self) == #"{"bytes":307200,"ticket":"t1"}"#)
        #expect(checked.count == 1)
        #expect(server.server.bufferedBodyBytes == 0)
    }

    @Test func aStreamedBodyGoesToTheSinkNotToMemory() async throws {
        let handled = HitCounter()
        let sink = CountingSink()
        let server = try TestHTTPServer(responder: Self.router(handled: handled) { _ in .later { .stream(sink) } })
        let body = Data(repeating: 0x63, count: 2 << 20)
        let reply = try await RawHTTPConnection.exchange(
            port: server.port, bytes: Data("POST /upload/t1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
        )
        await server.stop()
        #expect(reply.status == 200)
        #expect(String(decoding: reply.body, as: UTF8.self) == #"{"bytes":2097152,"ticket":"t1"}"#)
        #expect(sink.finished && sink.closed)
    }

    @Test func aSinkOverItsLimitRefusesAndTheHandlerNeverRuns() async throws {
        let handled = HitCounter()
        let sink = CountingSink(limit: 100 << 10)
        let server = try TestHTTPServer(responder: Self.router(handled: handled) { _ in .stream(sink) })
        let chunk = String(repeating: "d", count: 60 << 10)
        let hex = String(chunk.utf8.count, radix: 16)
        let chunked = "\(hex)\r\n\(chunk)\r\n\(hex)\r\n\(chunk)\r\n0\r\n\r\n"
        let reply = try await RawHTTPConnection.exchange(
            port: server.port, "POST /upload/t1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunked
        )
        await server.stop()
        #expect(reply.status == 413)
        #expect(handled.count == 0)
        #expect(sink.closed && !sink.finished)
    }

    @Test func bodiesOverTheServersMemoryBudgetAreRefusedWith503() async throws {
        let handled = HitCounter()
        let server = try TestHTTPServer(responder: Self.router(handled: handled) { _ in .admit }) {
            $0.maximumBufferedBodyBytes = 1 << 20
        }
        // The whole body is sent: one this small is read and thrown away before the answer (RefusedBodyTests).
        let (reply, _) = try await Self.startUpload(port: server.port, declared: 2 << 20, sending: 2 << 20)
        let small = try await RawHTTPConnection.exchange(
            port: server.port, "POST /upload/t2 HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5\r\n\r\nhello"
        )
        await server.stop()
        #expect(reply.status == 503)
        #expect(String(decoding: reply.body, as: UTF8.self).contains("TRY_AGAIN_LATER"))
        #expect(small.status == 200)
        #expect(server.server.bufferedBodyBytes == 0)
    }
}
