import CCurl
import Foundation
import StratusLogging
import StratusServer
import Synchronization

/// The thread that drives one libcurl multi handle: adds submitted transfers, performs, polls.
///
/// Callers hand transfers over with ``submit(_:)`` (which wakes the poll with
/// `curl_multi_wakeup`, the one multi function libcurl allows from another thread); the multi
/// handle, its connections and the transfers in flight belong to the loop thread alone.
// Safety: `multi` and `active` are used only by the loop thread (`run`), except `curl_multi_wakeup`,
// which libcurl documents as callable from any thread; everything else shared is behind `shared`.
final class CurlMultiLoop: @unchecked Sendable {
    private struct Shared {
        var pending: [CurlTransfer] = []
        var stopping = false
        var stopped: [CheckedContinuation<Void, Never>] = []
        var finished = false
    }

    private let multi: UnsafeMutableRawPointer
    private let shared = Mutex(Shared())
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private let logger: Logger

    init(maximumConnectionsPerHost: Int, maximumConcurrentStreams: Int, logger: Logger) throws(APNsTransportError) {
        guard let multi = curl_multi_init() else { throw APNsTransportError(.invalidRequest, "curl_multi_init failed") }
        self.multi = multi
        self.logger = logger
        let codes = [
            stratus_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX)),
            stratus_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, maximumConnectionsPerHost)),
            stratus_curl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, max(1, maximumConcurrentStreams)),
        ]
        guard codes.allSatisfy({ $0 == CURLM_OK }) else {
            curl_multi_cleanup(multi)
            throw APNsTransportError(.invalidRequest, "libcurl refused a multi option (is it built with HTTP/2?)")
        }
        let thread = Thread { [self] in run() }
        thread.name = "stratus-apns-curl"
        thread.start()
    }

    /// Queues `transfer` for the loop; it fails at once if the loop is stopping.
    func submit(_ transfer: CurlTransfer) {
        let accepted = shared.withLock { shared -> Bool in
            guard !shared.stopping else { return false }
            shared.pending.append(transfer)
            return true
        }
        guard accepted else {
            transfer.fail(APNsTransportError(.shutDown, "the APNs transport is shut down"))
            return
        }
        curl_multi_wakeup(multi)
    }

    /// Fails what is in flight, ends the thread and returns when it has.
    func stop() async {
        await withCheckedContinuation { continuation in
            let finished = shared.withLock { shared -> Bool in
                shared.stopping = true
                if shared.finished { return true }
                shared.stopped.append(continuation)
                return false
            }
            if finished {
                continuation.resume()
            } else {
                curl_multi_wakeup(multi)
            }
        }
    }

    private func run() {
        while true {
            let (incoming, stopping) = shared.withLock { shared in
                defer { shared.pending = [] }
                return (shared.pending, shared.stopping)
            }
            for transfer in incoming {
                guard curl_multi_add_handle(multi, transfer.easy) == CURLM_OK else {
                    transfer.fail(APNsTransportError(.invalidRequest, "curl_multi_add_handle failed"))
                    continue
                }
                active[transfer.easy] = transfer
            }
            if stopping { break }
            var running: Int32 = 0
            let performed = curl_multi_perform(multi, &running)
            if performed != CURLM_OK { logger.error("curl_multi_perform failed: \(String(cString: curl_multi_strerror(performed)))") }
            collectFinished()
            var descriptors: Int32 = 0
            _ = curl_multi_poll(multi, nil, 0, 1000, &descriptors)
        }
        for (easy, transfer) in active {
            curl_multi_remove_handle(multi, easy)
            transfer.fail(APNsTransportError(.shutDown, "the APNs transport shut down before an answer came"))
        }
        active = [:]
        curl_multi_cleanup(multi)
        let waiting = shared.withLock { shared in
            shared.finished = true
            defer { shared.stopped = [] }
            return shared.stopped
        }
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
