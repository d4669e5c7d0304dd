import Foundation
import StratusClient
import StratusLogging
import StratusWire

extension DocumentsContainer {
    /// Syncs on its own: after inotify reports a change (debounced), every ``Configuration/rescanInterval``,
    /// and — with ``Configuration/observesPushes`` — when the server pushes a change of the documents zone.
    ///
    /// Call ``stopWatching()`` (or ``close()``) to stop. Errors of these syncs are logged and retried at
    /// the next event or rescan.
    ///
    /// ```swift
    /// try await documents.startWatching()
    /// ```
    ///
    /// - Throws: ``DocumentsError/Code/watcher`` when inotify cannot be set up; `StratusError` when the
    ///   zone subscription cannot be saved; ``DocumentsError/Code/readOnly`` for a read-only container.
    public func startWatching() async throws {
        try requireWritable("watch")
        guard watcher == nil else { return }
        let watcher = try DirectoryWatcher(directory: directory) { [weak self] events in
            guard let self else { return }
            Task { await self.noticed(events) }
        }
        self.watcher = watcher
        if configuration.observesPushes {
            do {
                try await listenToPushes()
            } catch {
                stopWatching()
                throw error
            }
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

    /// Subscribes to the documents zone and syncs (debounced) on each of its pushes.
    private func listenToPushes() async throws {
        _ = try await serialized { try await self.ensureZone() }
        let zoneID = DocumentRecord.zoneID()
        try await database.save(Subscription(subscriptionID: DocumentRecord.zoneName, subscriptionType: .zone, zoneID: zoneID))
        let notifications = container.notifications(configuration: configuration.notifications)
        let logger = configuration.logger
        watchTasks.append(
            Task { [weak self] in
                do {
                    for try await notification in notifications where notification.zoneID?.zoneName == zoneID.zoneName || notification.isResync {
                        await self?.noticed([])
                    }
                } catch {
                    logger.info("documents stop listening to pushes: \(error)")
                }
            })
    }

    private func syncLogged() async {
        do {
            try await sync()
        } catch {
            configuration.logger.warning("documents sync failed: \(error)")
        }
    }
}
