import BenchSupport
import Synchronization

/// What the workload saw of one kind of request during one sampling period.
struct KindTally: Sendable {
    /// Latencies of the requests that got the answer they asked for, in nanoseconds.
    var latencies: [Double] = []
    /// Requests answered with an error nobody asked for.
    var unexpected = 0
    /// Requests meant to fail that failed the way they should.
    var provoked = 0

    /// The period's p50 and p99 in milliseconds (`nan` without samples).
    var p50: Double { percentile(latencies, 50) / 1e6 }
    var p99: Double { percentile(latencies, 99) / 1e6 }
}

/// One kind's counts over the whole run.
struct Total: Sendable {
    /// Requests that got the answer they asked for.
    var answered = 0
    /// Requests answered with an error nobody asked for.
    var unexpected = 0
    /// Requests meant to fail that failed the way they should.
    var provoked = 0
}

/// The tallies of every kind, per sampling period, shared by the workload's threads.
///
/// ```swift
/// let recorder = Recorder()
/// recorder.succeeded("write", nanoseconds: 412_000)
/// let period = recorder.drain()   // at each sample: this period's tallies, and a fresh period begins
/// ```
final class Recorder: Sendable {
    private struct State {
        var period: [String: KindTally] = [:]
        var totals: [String: Total] = [:]
        /// The first unexpected errors, for the report (kept to a few so the recorder stays flat itself).
        var examples: [String] = []
    }

    private let state = Mutex(State())
    private static let exampleLimit = 20

    /// A request that got the answer it asked for.
    func succeeded(_ kind: String, nanoseconds: Double) {
        state.withLock { $0.period[kind, default: KindTally()].latencies.append(nanoseconds) }
    }

    /// A request meant to fail that failed the way it should.
    func provoked(_ kind: String) {
        state.withLock { $0.period[kind, default: KindTally()].provoked += 1 }
    }

    /// A request answered with an error nobody asked for (or a provoked one that failed the wrong way).
    func unexpected(_ kind: String, _ what: String) {
        state.withLock { state in
            state.period[kind, default: KindTally()].unexpected += 1
            if state.examples.count < Self.exampleLimit { state.examples.append("\(kind): \(what.prefix(300))") }
        }
    }

    /// This period's tallies; a new period begins. Counts (not latencies) also go into the totals.
    func drain() -> [String: KindTally] {
        state.withLock { state in
            let period = state.period
            state.period = [:]
            for (kind, tally) in period {
                state.totals[kind, default: Total()].answered += tally.latencies.count
                state.totals[kind, default: Total()].unexpected += tally.unexpected
                state.totals[kind, default: Total()].provoked += tally.provoked
            }
            return period
        }
    }

    /// Per kind, the counts of every drained period.
    func totals() -> [String: Total] { state.withLock { $0.totals } }

    /// The first unexpected errors of the run.
    var examples: [String] { state.withLock { $0.examples } }
}
