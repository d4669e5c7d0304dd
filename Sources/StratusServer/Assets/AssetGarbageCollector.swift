import StratusLogging
import Synchronization

/// Deletes the asset contents no record has referenced for ``AssetConfiguration/gracePeriod``:
/// the rows in the store, the bytes in the asset store (trashed inside the transaction, emptied
/// after it commits, restored if it fails).
struct AssetGarbageCollector: Sendable {
    let store: any RecordStore
    /// Where asset contents live; `nil` while assets are off (nothing to collect).
    let files: (any AssetBlobStore)?
    let configuration: AssetConfiguration
    let now: @Sendable () -> Int64
    let logger: Logger

    /// Deletes asset contents no record has referenced for the grace period; returns how many.
    @discardableResult
    func collect() async throws -> Int {
        guard let files else { return 0 }
        let cutoff = now() - configuration.gracePeriod
        let trashed = Mutex<[(key: String, location: AssetBlobLocation)]>([])
        var total = 0
        while true {
            do {
                let count = try await store.write { tx -> Int in
                    let keys = try tx.collectableAssets(releasedBefore: cutoff, limit: 500)
                    for key in keys {
                        try tx.deleteAsset(key: key)
                        if let location = try files.trash(key: key) { trashed.withLock { $0.append((key, location)) } }
                    }
                    return keys.count
                }
                files.empty(trashed.withLock { $0.map(\.location) })
                trashed.withLock { $0.removeAll() }
                total += count
                if count < 500 { return total }
            } catch {
                for entry in trashed.withLock({ $0 }) { files.restore(entry.location, key: entry.key) }
                throw error
            }
        }
    }

    /// Collects asset garbage every `interval` until the task is cancelled.
    func run(every interval: Duration) async {
        while !Task.isCancelled {
            do {
                let count = try await collect()
                if count > 0 { logger.info("collected \(count) unreferenced asset(s)") }
            } catch {
                logger.error("asset collection failed: \(error)")
            }
            try? await Task.sleep(for: interval)
        }
    }
}
