import Synchronization

/// A histogram of durations in seconds, such as request latency.
///
/// ```swift
/// let latency = metrics.timer("stratus_http_request_duration_seconds", help: "Request latency.")
/// latency.record(seconds: 0.000_250)
/// ```
public final class Timer: PrometheusSample {
    /// Bucket bounds from 100 µs to 10 s, suited to HTTP latency.
    public static let defaultBuckets: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    private struct State {
        var bucketCounts: [Int64]
        var sum: Double = 0
        var count: Int64 = 0
    }

    private let bounds: [Double]
    private let state: Mutex<State>

    init(buckets: [Double]) {
        bounds = buckets.sorted()
        state = Mutex(State(bucketCounts: Array(repeating: 0, count: buckets.count)))
    }

    /// Records one duration.
    public func record(seconds: Double) {
        let index = bounds.firstIndex(where: { seconds <= $0 })
        state.withLock { state in
            if let index { state.bucketCounts[index] += 1 }
            state.sum += seconds
            state.count += 1
        }
    }

    /// Records one duration.
    public func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        record(seconds: Double(seconds) + Double(attoseconds) / 1e18)
    }

    /// How many durations were recorded.
    public var count: Int64 { state.withLock { $0.count } }

    func render(name: String, labels: Labels, into out: inout String) {
        let snapshot = state.withLock { $0 }
        var cumulative: Int64 = 0
        for (bound, bucketCount) in zip(bounds, snapshot.bucketCounts) {
            cumulative += bucketCount
            out += "\(name)_bucket\(labels.rendered(adding: "le", prometheusNumber(bound))) \(cumulative)\n"
        }
        out += "\(name)_bucket\(labels.rendered(adding: "le", "+Inf")) \(snapshot.count)\n"
        out += "\(name)_sum\(labels.braced) \(prometheusNumber(snapshot.sum))\n"
        out += "\(name)_count\(labels.braced) \(snapshot.count)\n"
    }
}
