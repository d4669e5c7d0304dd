import Foundation
import StratusHTTP
import StratusHTTPServer
import StratusTesting
import Synchronization
import Testing

/// Shutdown with handlers, long-polls and parked connections in flight (issue 17): every
/// connection is answered exactly once, the daemon never stops with one suspended, and
/// `shutdown` returns only once every handler has returned — the caller closes the store next.
@Suite struct HTTPServerShutdownTests {
    /// A handler that outlives the grace period and ignores its cancellation: its client gets 503
    /// `TRY_AGAIN_LATER` without waiting for it, and shutdown returns only after the handler did.
    @Test func shutdownAnswersALateHandlerAndStillWaitsForItToReturn() async throws {
        let events = EventLog()
        let started = Signal()
        let release = Signal()
        var router = Router()
        router.route(.post, "/stuck") { _ in
            await started.fire()
            await release.wait()  // ignores cancellation on purpose
            events.append("handler returned")
            return .text("late")
        }
        let server = try TestHTTPServer(responder: router)
        let client = Task {
            let reply = try await RawHTTPConnection.exchange(
                port: server.port, "POST /stuck HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            events.append("client got \(reply.status.map(String.init) ?? "no status")")
            return reply
        }
        await started.wait()
        let stopping = Task {
            await server.stop(gracePeriod: .milliseconds(100))
            events.append("shutdown returned")
        }
        let reply = try await client.value
        #expect(reply.status == 503)
        #expect(String(decoding: reply.body, as: UTF8.self).contains("TRY_AGAIN_LATER"))
        // The client is answered and the exchange is over; shutdown must still be waiting for the
        // handler. (Without the wait it returns within milliseconds of the 503; the check only
        // gives it the time to, and can never fail because the machine is slow.)
        #expect(await eventually { server.server.inFlightRequests == 0 })
        let returnedEarly = await eventually(timeout: .seconds(2)) { events.entries.contains("shutdown returned") }
        #expect(!returnedEarly, "shutdown returned while a handler was still running: \(events.entries)")
        await release.fire()
        await stopping.value
        #expect(events.entries == ["client got 503", "handler returned", "shutdown returned"])
    }

    /// Stopping while ordinary requests and long-polls are in flight, over and over: each client
    /// gets an answer (200 or 503), no handler runs past the shutdown, and nothing is left in flight.
    @Test(arguments: 0..<8) func stoppingWithRequestsAndLongPollsInFlightAnswersEveryone(_ round: Int) async throws {
        let running = Mutex(0)
        let pastShutdown = Mutex(false)
        let longPolls = Signal()
        var router = Router()
        router.route(.get, "/poll") { _ in
            running.withLock { $0 += 1 }
            defer { running.withLock { $0 -= 1 } }
            await longPolls.wait()
            return .text("woken")
        }
        router.route(.post, "/work") { request in
            running.withLock { $0 += 1 }
            defer { running.withLock { $0 -= 1 } }
            await Task.yield()
            return .json(bytes: Data(#"{"bytes":\#(request.body.count)}"#.utf8))
        }
        let server = try TestHTTPServer(responder: router)
        let port = server.port
        let clients = (0..<24).map { index in
            Task { () -> Int? in
                let request =
                    index % 3 == 0
                    ? "GET /poll HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    : "POST /work HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi"
                return try? await RawHTTPConnection.exchange(port: port, request).status
            }
        }
        // The long-polls wake as shutdown begins (as the courier's do), racing its cancellation.
        async let stopped: Void = server.stop(gracePeriod: round % 2 == 0 ? .zero : .milliseconds(50))
        await longPolls.fire()
        await stopped
        pastShutdown.withLock { $0 = running.withLock { $0 } > 0 }
        var statuses: [Int?] = []
        for client in clients { statuses.append(await client.value) }
        #expect(!pastShutdown.withLock { $0 }, "a handler was still running when shutdown returned")
        // A client whose connection shutdown closed before it was accepted gets no status (nil);
        // one that was accepted gets 200 or 503, never anything else.
        #expect(statuses.allSatisfy { $0 == nil || $0 == 200 || $0 == 503 }, "round \(round): \(statuses)")
        #expect(server.server.inFlightRequests == 0)
    }
}

/// What happened, in order, from any thread.
final class EventLog: Sendable {
    private let log = Mutex<[String]>([])
    func append(_ event: String) { log.withLock { $0.append(event) } }
    var entries: [String] { log.withLock { $0 } }
}

/// Shutdown racing the handlers of parked connections (issue 16, part 4).
@Suite struct HTTPServerShutdownRaceTests {
    /// Handlers answer at the very moment shutdown begins, with no grace period: each connection is
    /// resumed exactly once, by its task or by shutdown, and the daemon stops only after all were —
    /// stopping it with one still suspended aborts the process (libmicrohttpd's
    /// `MHD_stop_daemon() called while we have suspended connections`).
    @Test(arguments: 0..<4) func shutdownRacingParkedHandlersAnswersEveryConnection(_ round: Int) async throws {
        let release = Signal()
        // The forty handlers and the test: the test goes on once every connection is parked.
        let parked = Gate(count: 41)
        var router = Router()
        router.route(.get, "/poll") { _ in
            await parked.arrive()
            await release.wait()
            return .text("answered")
        }
        let server = try TestHTTPServer(responder: router)
        let polls = (0..<40).map { _ in
            Task {
                try await RawHTTPConnection.exchange(port: server.port, "GET /poll HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").status
            }
        }
        await parked.arrive()
        async let stopped: Void = server.stop(gracePeriod: .zero)
        await release.fire()
        await stopped
        var statuses: [Int?] = []
        for poll in polls { statuses.append(try await poll.value) }
        #expect(statuses.allSatisfy { $0 == 200 || $0 == 503 }, "round \(round): \(statuses)")
        #expect(server.server.inFlightRequests == 0)
    }
}
