import StratusClient
import StratusLogging
import StratusWire

/// What a watching container runs: the inotify watcher and the tasks that sync on its own — the
/// debounced one after an event, the periodic rescan and the push listener.
///
/// One job: start, coalesce and stop those tasks. The container owns one (actor-isolated) and hands it
/// what a sync is; the tasks hold the container weakly, so a container dropped while watching ends them.
struct FolderWatch {
    private var watcher: DirectoryWatcher?
    private var tasks: [Task<Void, Never>] = []
    /// Whether a debounced sync is waiting to run.
    private var pending = false

    /// Whether a watcher runs.
    var isWatching: Bool { watcher != nil }

    /// Starts with `watcher`.
    mutating func start(_ watcher: DirectoryWatcher) {
        self.watcher = watcher
    }

    /// Stops the watcher and every task.
    mutating func stop() {
        watcher?.stop()
        watcher = nil
        for task in tasks { task.cancel() }
        tasks = []
    }

    /// Syncs every `interval` until stopped; `sync` returns `false` when the container is gone.
    mutating func rescan(every interval: Duration, _ sync: @escaping @Sendable () async -> Bool) {
        tasks.append(
            Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    guard !Task.isCancelled, await sync() else { return }
                }
            })
    }

    /// Schedules one sync `debounce` after an event, unless one is already waiting; `run` clears the
    /// waiting mark (``settle()``) and syncs.
    mutating func notice(debounce: Duration, _ run: @escaping @Sendable () async -> Void) {
        guard !pending, watcher != nil else { return }
        pending = true
        tasks.removeAll { $0.isCancelled }
        tasks.append(
            Task {
                try? await Task.sleep(for: debounce)
                guard !Task.isCancelled else { return }
                await run()
            })
    }

    /// The waiting sync starts: the next event schedules another.
    mutating func settle() { pending = false }

    /// Calls `notice` for each push of the zone `zoneName` (or a resync) until the stream ends.
    mutating func listen(
        to notifications: AsyncThrowingStream<CloudNotification, any Error>, zoneName: String, logger: Logger,
        notice: @escaping @Sendable () async -> Void
    ) {
        tasks.append(
            Task {
                do {
                    for try await notification in notifications where notification.zoneID?.zoneName == zoneName || notification.isResync {
                        await notice()
                    }
                } catch {
                    logger.info("documents stop listening to pushes: \(error)")
                }
            })
    }
}
