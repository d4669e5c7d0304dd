import Foundation
import StratusClient
import StratusLogging
import StratusTesting
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What the simulated network does to one request.
enum RequestFault: String, Sendable, CaseIterable {
    /// Delivered, answered.
    case none
    /// Lost before the server saw it: the client gets a connection error.
    case dropped
    /// Applied by the server, the answer lost: the client gets a connection error.
    case answerLost
    /// Sent twice (a retransmission): the server applies both, the client sees the second answer.
    case duplicated
    /// A `changes/zone` with a token answered as a server that compacted its log answers:
    /// `BAD_REQUEST` "the sync token has expired" (the SDK's `changeTokenExpired`) where the server
    /// would have taken the token; the device's next fetch from no token lists no tombstones
    /// (compacted with the log).
    case tokenExpired
}

/// The odds of each request fault, per thousand requests.
struct FaultRates: Sendable, CustomStringConvertible {
    var dropped = 0
    var answerLost = 0
    var duplicated = 0
    var tokenExpired = 0

    var description: String { "drop \(dropped)‰ lose \(answerLost)‰ dup \(duplicated)‰ expire \(tokenExpired)‰" }
}

/// Everything that happened in one seed's world, in order: the scheduler's steps, each request
/// with its fault and (with `SIM_LOG=1`) the sync controllers' debug journal.
final class SimJournal: Sendable, LogHandler {
    private let lines = Mutex<[String]>([])
    let verbose: Bool

    init(verbose: Bool) { self.verbose = verbose }

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    var all: [String] { lines.withLock { $0 } }

    func write(_ record: LogRecord) { append("    [\(record.label)] \(record.message)") }

    /// A logger into the journal when verbose, else none.
    func logger(_ label: String) -> Logger { verbose ? Logger(label: label, level: .debug, handler: self) : .disabled }
}

/// One device's network: a switch, and the faults the seed draws for each request, in the order
/// the device sends them. Requests go to the in-process server (no sockets); while the server is
/// down they fail as a refused connection.
final class SimNetwork: HTTPTransport {
    private struct State {
        var random: SeededGenerator
        var rates = FaultRates()
        var offline = false
        var trace: [String] = []
        /// Whether a token was refused as expired, until the fetch from no token that follows.
        var compacted = false
    }

    private let server: InProcessCloudKitServer
    private let serverDown: @Sendable () -> Bool
    private let state: Mutex<State>
    private let name: String
    let journal: SimJournal

    init(name: String, seed: UInt64, server: InProcessCloudKitServer, journal: SimJournal, serverDown: @escaping @Sendable () -> Bool) {
        self.name = name
        self.journal = journal
        self.server = server
        self.serverDown = serverDown
        state = Mutex(State(random: SeededGenerator(seed: seed)))
    }

    var rates: FaultRates {
        get { state.withLock { $0.rates } }
        set { state.withLock { $0.rates = newValue } }
    }

    var isOffline: Bool {
        get { state.withLock { $0.offline } }
        set { state.withLock { $0.offline = newValue } }
    }

    /// Every request with its fault, for the replay check and the failure message.
    var trace: [String] { state.withLock { $0.trace } }

    private func draw(_ request: TransportRequest, operation: String) -> RequestFault? {
        state.withLock { state -> RequestFault? in
            if state.offline { return nil }
            let roll = Int(state.random.next() % 1000)
            let rates = state.rates
            var fault = RequestFault.none
            let hasToken = operation == "changes/zone" && String(decoding: request.body, as: UTF8.self).contains("\"syncToken\"")
            if roll < rates.dropped {
                fault = .dropped
            } else if roll < rates.dropped + rates.answerLost {
                fault = .answerLost
            } else if roll < rates.dropped + rates.answerLost + rates.duplicated {
                fault = .duplicated
            } else if hasToken, roll < rates.dropped + rates.answerLost + rates.duplicated + rates.tokenExpired {
                fault = .tokenExpired
            }
            let line = "\(name) \(operation)\(fault == .none ? "" : " [\(fault.rawValue)]")"
            state.trace.append(line)
            journal.append("  → " + line)
            return fault
        }
    }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let operation = Self.operation(of: request.url.path)
        guard let fault = draw(request, operation: operation) else { throw URLError(.notConnectedToInternet) }
        if serverDown() { throw URLError(.cannotConnectToHost) }
        switch fault {
        case .none:
            var answer = await deliver(request)
            // The first fetch from no token after an expiry: the server compacted its log, tombstones too.
            if operation == "changes/zone",
                state.withLock({ state in
                    defer { state.compacted = false }
                    return state.compacted && !String(decoding: request.body, as: UTF8.self).contains("\"syncToken\"")
                })
            {
                answer.body = (try? CompactedChangeLog.withoutTombstones(answer.body)) ?? answer.body
            }
            return answer
        case .dropped:
            throw URLError(.networkConnectionLost)
        case .answerLost:
            _ = await deliver(request)
            throw URLError(.networkConnectionLost)
        case .duplicated:
            _ = await deliver(request)
            return await deliver(request)
        case .tokenExpired:
            // Only a token the server would take expires: one it refuses for data it lost (the zone
            // made again, the database restored) is refused as such by a compacting server too.
            let real = await deliver(request)
            // (`changes/zone` refuses per zone, inside a 200.)
            guard real.status == 200, !String(decoding: real.body, as: UTF8.self).contains("\"serverErrorCode\"") else { return real }
            state.withLock { $0.compacted = true }
            return CompactedChangeLog.expiredTokenAnswer
        }
    }

    private func deliver(_ request: TransportRequest) async -> TransportResponse {
        var query: [String: String] = [:]
        for item in URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        let answer = await server.respond(
            method: request.method, path: request.url.path, query: query, headers: request.headers.map { ($0.name, $0.value) },
            body: request.body)
        return TransportResponse(status: answer.status, headers: answer.headers.map { HTTPHeaderField($0.name, $0.value) }, body: answer.body)
    }

    /// `records/modify` from `/database/1/<container>/<environment>/<database>/records/modify`.
    static func operation(of path: String) -> String {
        let parts = path.split(separator: "/")
        return parts.count > 5 ? parts[5...].joined(separator: "/") : path
    }
}
