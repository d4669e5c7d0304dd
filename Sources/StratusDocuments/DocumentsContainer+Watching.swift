import Foundation
import StratusLogging

extension DocumentsContainer {
    /// Syncs on its own: after inotify reports a change (debounced), and every ``Configuration/rescanInterval``.
    ///
    /// Call ``stopWatching()`` (or ``close()``) to stop. Errors of these syncs are logged and retried at
    /// the next event or rescan.
    ///
    /// ```swift
    /// try await documents.startWatching()
    /// ```
    ///
    /// - Throws: ``DocumentsError/Code/watcher`` when inotify cannot be set up.
    public func startWatching() throws {
        guard watcher == nil else { return }
        watcher = try DirectoryWatcher(directory: directory) { [weak self] events in
            guard let self else { return }
            Task { await self.noticed(events) }
        }
        if let interval = configuration.rescanInterval {
            watchTasks.append(
                Task { [weak self] in
                    while !Task.isCancelled {
                        try? await Task.sleep(for: interval)
                        guard let self, !Task.isCancelled else { return }
                        await self.syncLogged()
                    }
                })
        }
    }

    /// Stops the watcher and the periodic rescan.
    public func stopWatching() {
        watcher?.stop()
        watcher = nil
        for task in watchTasks { task.cancel() }
        watchTasks = []
    }

    private func noticed(_ events: [DirectoryWatcher.Event]) {
        for case .moved(let from, let to) in events { moveHints[from] = to }
        guard !syncPending, watcher != nil else { return }
        syncPending = true
        let debounce = configuration.debounce
        watchTasks.removeAll { $0.isCancelled }
        watchTasks.append(
            Task { [weak self] in
                try? await Task.sleep(for: debounce)
                guard let self, !Task.isCancelled else { return }
                await self.clearPending()
                await self.syncLogged()
            })
    }

    private func clearPending() { syncPending = false }

    private func syncLogged() async {
        do {
            try await sync()
        } catch {
            configuration.logger.warning("documents sync failed: \(error)")
        }
    }
}
