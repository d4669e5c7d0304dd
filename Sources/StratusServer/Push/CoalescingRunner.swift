import Synchronization

/// Runs one drain at a time: a kick while it runs makes it run once more when it ends, so no kick
/// is lost and no two drains overlap; optional periodic kicks; closing refuses new runs.
///
/// Push fan-out and APNs delivery drain their queues through it. The drain is called with the
/// owner, held weakly (attached once the owner exists), so the runner never keeps it alive.
///
/// ```swift
/// final class Outbox: Sendable {
///     private let runner = CoalescingRunner<Outbox> { outbox in await outbox.drainEverything() }
///
///     init() {
///         runner.attach(self)                    // at the end of the owner's init
///         runner.startSweeping(every: .seconds(5))
///     }
///
///     func committed() { runner.kick() }         // after a commit
///
///     func shutdown() async {
///         runner.close()
///         await runner.idle()
///     }
///
///     func drainEverything() async { /* send what is queued */ }
/// }
/// ```
final class CoalescingRunner<Owner: AnyObject & Sendable>: Sendable {
    private struct State {
        weak var owner: Owner?
        var run: Task<Void, Never>?
        var again = false
        var closed = false
        var sweeper: Task<Void, Never>?
    }

    private let state = Mutex(State())
    private let body: @Sendable (Owner) async -> Void

    /// - Parameter body: One drain; it should return once there is nothing left (or ``isClosed``).
    init(_ body: @escaping @Sendable (Owner) async -> Void) {
        self.body = body
    }

    /// Sets the owner the drain is called with.
    func attach(_ owner: Owner) {
        state.withLock { $0.owner = owner }
    }

    /// Whether ``close()`` was called.
    var isClosed: Bool { state.withLock { $0.closed } }

    /// Starts a drain unless one is running (which then drains once more); nothing once closed.
    func kick() {
        state.withLock { state in
            guard !state.closed else { return }
            guard state.run == nil else {
                state.again = true
                return
            }
            state.run = Task { [self] in await run() }
        }
    }

    /// Kicks now and then every `interval` until ``close()``.
    func startSweeping(every interval: Duration) {
        state.withLock { state in
            guard !state.closed, state.sweeper == nil else { return }
            state.sweeper = Task { [weak self] in
                while !Task.isCancelled {
                    self?.kick()
                    try? await Task.sleep(for: interval)
                }
            }
        }
    }

    /// Stops sweeping and refuses new drains.
    func close() {
        let sweeper = state.withLock { state in
            state.closed = true
            defer { state.sweeper = nil }
            return state.sweeper
        }
        sweeper?.cancel()
    }

    /// Returns once no drain is running (after ``close()``: for good).
    func idle() async {
        while let run = state.withLock({ $0.run }) {
            await run.value
        }
    }

    private func run() async {
        while true {
            if let owner = state.withLock({ $0.owner }) { await body(owner) }
            let again = state.withLock { state in
                if state.again, !state.closed {
                    state.again = false
                    return true
                }
                state.run = nil
                return false
            }
            guard again else { return }
        }
    }
}
