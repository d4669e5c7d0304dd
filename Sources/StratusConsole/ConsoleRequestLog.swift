public import StratusHTTP
import Foundation
import Synchronization

/// The live tail of the request log the Operations page shows: the last 500 requests this node
/// answered (method, path, status, duration), kept in memory.
///
/// Paths that carry bearer secrets (download tickets, courier tokens) are cut to their first
/// segment; query strings are never kept. Add it to the router before the routes:
///
/// ```swift
/// import StratusHTTP
///
/// var router = Router()
/// let log = ConsoleRequestLog()
/// router.use(log)
/// ```
public final class ConsoleRequestLog: HTTPMiddleware, Sendable {
    /// One answered request.
    struct Entry: Encodable, Sendable {
        var sequence: Int64
        var at: Int64
        var method: String
        var path: String
        var status: Int
        var milliseconds: Double
        var requestID: String
    }

    private struct State {
        var entries: [Entry] = []
        var next: Int64 = 1
    }

    private let state = Mutex(State())
    private let capacity: Int

    /// Creates an empty log keeping the last `capacity` requests.
    public init(capacity: Int = 500) {
        self.capacity = max(1, capacity)
    }

    /// Records the answered request.
    public func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {
        let elapsed = ContinuousClock.now - request.receivedAt
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        let path = Self.shown(request.path)
        let at = Int64(Date().timeIntervalSince1970 * 1000)
        state.withLock { state in
            state.entries.append(
                Entry(
                    sequence: state.next, at: at, method: request.method.rawValue, path: path, status: response.status.code,
                    milliseconds: (milliseconds * 10).rounded() / 10, requestID: request.requestID
                ))
            state.next += 1
            if state.entries.count > capacity { state.entries.removeFirst(state.entries.count - capacity) }
        }
    }

    /// The entries after sequence number `after`, oldest first.
    func entries(after: Int64) -> [Entry] {
        state.withLock { state in state.entries.filter { $0.sequence > after } }
    }

    /// The path as the tail shows it: database, console, health and metrics paths whole; any other
    /// (asset downloads and uploads, courier polls, sign-in links: their segments may be bearer
    /// secrets) cut to its first segment.
    static func shown(_ path: String) -> String {
        let keptWhole = ["/database/", "/console", "/health", "/ready", "/metrics", "/openapi.json", "/signin"]
        if keptWhole.contains(where: { path.hasPrefix($0) }) { return String(path.prefix(300)) }
        let first = path.split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
        return "/" + first + "/…"
    }
}
