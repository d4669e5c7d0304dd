import Dispatch
import Foundation
import StratusClient
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The transport never blocks its caller's thread on URLSession's own queue (issue 17: the suite's
/// load-sensitive failures came from both threads of the cooperative pool waiting in
/// `URLSessionTask.resume()` while the session's queue was busy, which stalled every task of the
/// process, servers included).
@Suite(.serialized) struct TransportThreadTests {
    /// While the session's queue is held (a request whose loading is stalled on it), a second
    /// request started from a one-thread executor leaves that thread free: the next job of the
    /// executor runs before the stall is released. Blocking in `resume()` would hold the thread
    /// until the release.
    @Test func startingARequestNeverWaitsOnTheSessionsQueue() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [StallingProtocol.self]
        let transport = URLSessionTransport(configuration: configuration)
        let request = TransportRequest(method: "GET", url: try #require(URL(string: "http://127.0.0.1:9/stall")), timeout: .seconds(120))
        let first = Task { try? await transport.send(request) }
        await StallingProtocol.stall.waitUntilEntered()

        let executor = OneThreadExecutor()
        let second = Task(executorPreference: executor) { try? await transport.send(request) }
        // The hang guard: releases the stall if the executor's thread stays blocked.
        let guardRelease = Task.detached {
            try await Task.sleep(for: .seconds(60))
            StallingProtocol.stall.release(by: "the hang guard")
        }
        let probe = await Task(executorPreference: executor) { StallingProtocol.stall.releasedBy }.value
        #expect(probe == nil, "the executor's thread was blocked until \(probe ?? "?") released the session's queue")
        StallingProtocol.stall.release(by: "the test")
        guardRelease.cancel()
        _ = await first.value
        _ = await second.value
    }
}

/// A URL protocol whose loading holds the session's queue until released; every request fails after.
final class StallingProtocol: URLProtocol {
    static let stall = Stall()

    /// The stall: entered by the first loading, released once.
    final class Stall: Sendable {
        private let state = Mutex<(entered: Bool, releasedBy: String?)>((false, nil))
        private let released = DispatchSemaphore(value: 0)

        var releasedBy: String? { state.withLock { $0.releasedBy } }

        /// Blocks the calling thread (the session's queue) until released, the first time only.
        func enter() {
            let first = state.withLock { state -> Bool in
                defer { state.entered = true }
                return !state.entered
            }
            if first { released.wait() }
        }

        func waitUntilEntered() async {
            while !state.withLock({ $0.entered }) { try? await Task.sleep(for: .milliseconds(5)) }
        }

        func release(by who: String) {
            let first = state.withLock { state -> Bool in
                guard state.releasedBy == nil else { return false }
                state.releasedBy = who
                return true
            }
            if first { released.signal() }
        }
    }

    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override func startLoading() {
        Self.stall.enter()
        client?.urlProtocol(self, didFailWithError: URLError(.cannotConnectToHost))
    }

    override func stopLoading() {}
}

/// A task executor with one thread (a serial queue): what a caller's thread is, in miniature.
final class OneThreadExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "one-thread-executor")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
