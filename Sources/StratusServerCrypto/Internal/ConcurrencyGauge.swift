import Synchronization

/// Counts how many operations run at once and remembers the peak, for tests and diagnostics.
final class ConcurrencyGauge: Sendable {
    private let state = Mutex<(current: Int, peak: Int)>((0, 0))

    /// The most operations that were ever inside ``measure(_:)`` at the same time.
    var peak: Int {
        state.withLock { $0.peak }
    }

    /// Runs `body`, counting it as in flight while it runs.
    func measure<Result>(_ body: () throws -> Result) rethrows -> Result {
        state.withLock { state in
            state.current += 1
            state.peak = max(state.peak, state.current)
        }
        defer { state.withLock { $0.current -= 1 } }
        return try body()
    }
}
