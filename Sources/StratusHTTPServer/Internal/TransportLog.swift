import CMicroHTTPD
import Foundation
import StratusLogging
import Synchronization

/// libmicrohttpd's own messages ("Server reached connection limit…"), routed to the server's
/// logger and rate-limited: a flood of refused connections writes one line per kind of message
/// every ``interval``, with a count of those left out, instead of one line per connection.
// Safety: `logger` points to memory allocated in `init`, written only there and freed in `deinit`;
// libmicrohttpd only reads it, while the daemon runs (the server outlives its daemon).
final class TransportLog: @unchecked Sendable {
    private struct Kind {
        var lastLogged: ContinuousClock.Instant
        var suppressed: Int
    }

    private let log: Logger
    private let interval: Duration
    /// Each kind's last logged line, and the latest message of any kind.
    private struct Seen {
        var kinds: [String: Kind] = [:]
        var latest: String?
    }

    private let seen = Mutex(Seen())
    /// The logger libmicrohttpd calls, with this object as its context.
    let logger: UnsafeMutablePointer<stratus_mhd_logger>

    init(logger log: Logger, interval: Duration = .seconds(10)) {
        self.log = log
        self.interval = interval
        logger = .allocate(capacity: 1)
        logger.initialize(to: stratus_mhd_logger(sink: transportLogSink, context: nil))
        logger.pointee.context = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        logger.deallocate()
    }

    /// The last message libmicrohttpd gave (logged or not), once: why a daemon's start failed.
    func takeLatest() -> String? {
        seen.withLock { seen in
            defer { seen.latest = nil }
            return seen.latest
        }
    }

    /// Logs `message` unless a message of its kind was logged less than ``interval`` ago.
    func note(_ message: String) {
        let text = message.trimmingCharacters(in: .whitespacesAndNewlines)
        let kind = String(text.prefix(48))
        let now = ContinuousClock.now
        let suppressed = seen.withLock { seen -> Int? in
            seen.latest = text
            if var entry = seen.kinds[kind], now - entry.lastLogged < interval {
                entry.suppressed += 1
                seen.kinds[kind] = entry
                return nil
            }
            if seen.kinds.count >= 256 { seen.kinds.removeAll() }
            let suppressed = seen.kinds[kind]?.suppressed ?? 0
            seen.kinds[kind] = Kind(lastLogged: now, suppressed: 0)
            return suppressed
        }
        guard let suppressed else { return }
        let more = suppressed > 0 ? " (\(suppressed) more like it in the last \(interval))" : ""
        log.warning("libmicrohttpd: \(text)\(more)")
    }
}

/// The C function libmicrohttpd's messages reach, through `stratus_mhd_log_trampoline`.
private let transportLogSink: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Void = { context, message in
    guard let context, let message else { return }
    Unmanaged<TransportLog>.fromOpaque(context).takeUnretainedValue().note(String(cString: message))
}
