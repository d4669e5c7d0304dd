import CCurl
import Foundation
import Synchronization

/// The thread that drives one libcurl multi handle: adds submitted transfers, performs, polls.
///
/// Callers hand transfers over with ``submit(_:)`` and take them back with ``cancel(_:)`` (both wake
/// the poll with `curl_multi_wakeup`, the one multi function libcurl allows from another thread); the
/// multi handle, its connections (kept open between transfers) and the transfers in flight belong to
/// the loop thread alone. The thread starts with the first transfer. Waiting, it sleeps in
/// `curl_multi_poll` on the sockets libcurl wants — a parked long-poll costs no processor time.
/// (`CurlTransport` in the SDK and `CurlAPNsTransport` in the server show how it is used.)
// Safety: `multi` and `active` are used only by the loop thread (`run`), except `curl_multi_wakeup`,
// which libcurl documents as callable from any thread; everything else shared is behind `shared`.
package final class CurlMultiLoop: @unchecked Sendable {
    private struct Shared {
        var pending: [CurlTransfer] = []
        var cancelled: [CurlTransfer] = []
        var started = false
        var stopping = false
        var stopped: [CheckedContinuation<Void, Never>] = []
        var finished = false
        /// The multi handle was cleaned up by ``stopSoon()`` of a loop whose thread never started.
        var releasedUnstarted = false
    }

    private let multi: UnsafeMutableRawPointer
    private let name: String
    private let shared = Mutex(Shared())
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private let wakeupCount = Atomic(0)

    /// How many times the thread came back from waiting (a test's measure of a parked transfer's cost).
    package var wakeups: Int { wakeupCount.load(ordering: .relaxed) }

    /// Makes the multi handle; the thread is started by the first ``submit(_:)``.
    ///
    /// - Parameters:
    ///   - name: The thread's name, at most 15 bytes (Linux ignores a longer one).
    ///   - multiplexing: For HTTP/2: streams opened at once on one connection, and connections per
    ///     host (requests beyond wait for a stream); `nil` for HTTP/1.1 (a connection per request in flight).
    /// - Throws: ``CurlFailure/Kind/invalidRequest`` when libcurl cannot start or refuses an option.
    package init(name: String, multiplexing: (streams: Int, connectionsPerHost: Int)? = nil) throws(CurlFailure) {
        CurlGlobal.initialize()
        guard let multi = curl_multi_init() else { throw CurlFailure(.invalidRequest, "curl_multi_init failed") }
        self.multi = multi
        self.name = name
        guard let multiplexing else { return }
        let codes = [
            stratus_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX)),
            stratus_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, multiplexing.connectionsPerHost)),
            stratus_curl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(1, multiplexing.streams)),
        ]
        guard codes.allSatisfy({ $0 == CURLM_OK }) else {
            curl_multi_cleanup(multi)
            throw CurlFailure(.invalidRequest, "libcurl refused a multi option (is it built with HTTP/2?)")
        }
    }

    /// Queues `transfer` for the loop; it fails at once with ``CurlFailure/Kind/shutDown`` if the loop is stopping.
    package func submit(_ transfer: CurlTransfer) {
        let (accepted, start) = shared.withLock { shared -> (Bool, Bool) in
            guard !shared.stopping else { return (false, false) }
            shared.pending.append(transfer)
            wake(shared)
            defer { shared.started = true }
            return (true, !shared.started)
        }
        guard accepted else {
            transfer.fail(CurlFailure(.shutDown, "the transport is shut down"))
            return
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = name
            thread.start()
        }
    }

    /// Wakes the thread's poll if it runs; called with the lock held, so the multi handle, released
    /// once `finished` is set, is never woken after.
    private func wake(_ shared: borrowing Shared) {
        if shared.started, !shared.finished { curl_multi_wakeup(multi) }
    }

    /// Stops `transfer` (submitted or about to be): it fails with ``CurlFailure/Kind/cancelled`` unless it finished first.
    package func cancel(_ transfer: CurlTransfer) {
        transfer.cancelRequested.store(true, ordering: .sequentiallyConsistent)
        shared.withLock { shared in
            shared.cancelled.append(transfer)
            wake(shared)
        }
    }

    /// Fails what is in flight, ends the thread and returns when it has.
    package func stop() async {
        await withCheckedContinuation { continuation in
            let finished = shared.withLock { shared -> Bool in
                shared.stopping = true
                if shared.finished || !shared.started { return true }
                shared.stopped.append(continuation)
                wake(shared)
                return false
            }
            if finished { continuation.resume() }
        }
    }

    /// Asks the thread to end without waiting for it (the owner is going away).
    package func stopSoon() {
        let release = shared.withLock { shared -> Bool in
            shared.stopping = true
            wake(shared)
            // Once: a second call must not clean the handle up again (the thread, once started, does).
            guard !shared.started, !shared.releasedUnstarted else { return false }
            shared.releasedUnstarted = true
            return true
        }
        if release { curl_multi_cleanup(multi) }
    }

    private func run() {
        while true {
            let (incoming, cancelled, stopping) = shared.withLock { shared in
                defer {
                    shared.pending = []
                    shared.cancelled = []
                }
                return (shared.pending, shared.cancelled, shared.stopping)
            }
            add(incoming)
            for transfer in cancelled where active[transfer.easy] === transfer {
                curl_multi_remove_handle(multi, transfer.easy)
                active[transfer.easy] = nil
                transfer.fail(CurlFailure(.cancelled, "cancelled"))
            }
            if stopping { break }
            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            collectFinished()
            var descriptors: Int32 = 0
            // NB: libcurl shortens the wait to its own next timeout (a transfer's deadline, a retry).
            _ = curl_multi_poll(multi, nil, 0, 30_000, &descriptors)
            wakeupCount.add(1, ordering: .relaxed)
        }
        finishRunning()
    }

    private func add(_ incoming: [CurlTransfer]) {
        for transfer in incoming {
            if transfer.cancelRequested.load(ordering: .sequentiallyConsistent) {
                transfer.fail(CurlFailure(.cancelled, "cancelled"))
            } else if curl_multi_add_handle(multi, transfer.easy) == CURLM_OK {
                active[transfer.easy] = transfer
            } else {
                transfer.fail(CurlFailure(.invalidRequest, "curl_multi_add_handle failed"))
            }
        }
    }

    /// Fails what is in flight or still queued, releases the multi handle and resumes who waits for the stop.
    private func finishRunning() {
        for (easy, transfer) in active {
            curl_multi_remove_handle(multi, easy)
            transfer.fail(CurlFailure(.shutDown, "the transport shut down before an answer came"))
        }
        active = [:]
        let (waiting, queued) = shared.withLock { shared in
            shared.finished = true
            defer {
                shared.stopped = []
                shared.pending = []
            }
            return (shared.stopped, shared.pending)
        }
        curl_multi_cleanup(multi)
        for transfer in queued { transfer.fail(CurlFailure(.shutDown, "the transport is shut down")) }
        for continuation in waiting { continuation.resume() }
    }

    /// Completes every transfer libcurl reports done.
    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            curl_multi_remove_handle(multi, easy)
            active.removeValue(forKey: easy)?.complete(code)
        }
    }
}
