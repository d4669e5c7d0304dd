import StratusClient
import StratusLogging
import StratusWire

/// What a watching container runs: the inotify watcher and the tasks that sync on its own — the
/// debounced one after an event, the periodic rescan and the push listener.
///
/// One job: start, coalesce and stop those tasks. The container owns one (actor-isolated) and hands it
/// what a sync is; the tasks hold the container weakly, so a container dropped while watching ends them.
struct FolderWatch {
    /// One ``start(_:)``: tasks and the debounce mark belong to the watch that made them, so a task of a
    /// stopped watch (cancelled, but perhaps already past its last check) cannot act on a later one.
    struct Generation: Hashable, Sendable {
        fileprivate let number: Int
    }

    private var watcher: DirectoryWatcher?
    private var tasks: [Task<Void, Never>] = []
    private var generation = Generation(number: 0)
    /// Whether a debounced sync of the current watch is waiting to run; ``stop()`` clears it, since it
    /// cancels the task that would have.
    private(set) var isSyncPending = false

    /// Whether a watcher runs.
    var isWatching: Bool { watcher != nil }

    /// Starts with the watcher `makeWatcher` builds for the new watch's generation (its events carry
    /// it, so an event read by a stopped watcher cannot schedule a sync of a later watch); returns the
    /// generation, which ``notice(debounce:of:_:)``, ``rescan(every:of:_:)`` and
    /// ``listen(to:zoneName:logger:of:notice:)`` take.
    mutating func start(_ makeWatcher: (Generation) throws -> DirectoryWatcher) rethrows -> Generation {
        let next = Generation(number: generation.number + 1)
        watcher = try makeWatcher(next)
        generation = next
        return next
    }

    /// Whether `generation` is the watch that runs now (not stopped, not replaced by another start).
    func isCurrent(_ generation: Generation) -> Bool {
        watcher != nil && generation == self.generation
    }

    /// Stops the watcher and every task, and clears the debounce mark.
    mutating func stop() {
        watcher?.stop()
        watcher = nil
        for task in tasks { task.cancel() }
        tasks = []
        isSyncPending = false
        generation = Generation(number: generation.number + 1)
    }

    /// Syncs every `interval` until stopped; `sync` returns `false` when the container is gone. Nothing
    /// starts when `generation` is no longer current (stopped while the container awaited).
    mutating func rescan(every interval: Duration, of generation: Generation, _ sync: @escaping @Sendable () async -> Bool) {
        guard isCurrent(generation) else { return }
        tasks.append(
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard !Task.isCancelled, await sync() else { return }
                }
            })
    }

    /// Schedules one sync `debounce` after an event of the watch `generation`, unless one is already
    /// waiting or that watch was stopped; `run` is given the generation, clears the waiting mark with
    /// ``settle(_:)`` and syncs only if that returns `true`.
    mutating func notice(debounce: Duration, of generation: Generation, _ run: @escaping @Sendable (Generation) async -> Void) {
        guard !isSyncPending, isCurrent(generation) else { return }
        isSyncPending = true
        tasks.removeAll { $0.isCancelled }
        tasks.append(
            Task {
                try? await Task.sleep(for: debounce)
                guard !Task.isCancelled else { return }
                await run(generation)
            })
    }

    /// The waiting sync of `generation` starts: the next event schedules another. Returns `false` (and
    /// changes nothing) when that watch was stopped meanwhile: its sync must not run, nor touch the mark
    /// of a later watch.
    mutating func settle(_ generation: Generation) -> Bool {
        guard isCurrent(generation) else { return false }
        isSyncPending = false
        return true
    }

    /// Calls `notice` for each push of the zone `zoneName` (or a resync) until the stream ends or the
    /// watch stops. Nothing starts when `generation` is no longer current.
    mutating func listen(
        to notifications: AsyncThrowingStream<CloudNotification, any Error>, zoneName: String, logger: Logger,
        of generation: Generation, notice: @escaping @Sendable (Generation) async -> Void
    ) {
        guard isCurrent(generation) else { return }
        tasks.append(
            Task {
                do {
                    for try await notification in notifications where notification.zoneID?.zoneName == zoneName || notification.isResync {
                        await notice(generation)
                    }
                } catch {
                    logger.info("documents stop listening to pushes: \(error)")
                }
            })
    }
}
