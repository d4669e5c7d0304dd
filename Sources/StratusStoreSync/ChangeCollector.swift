import Foundation
import StratusStore

/// Folds persistent-history changes into what to upload: per object, a save of the changed synced
/// keys (`nil`: every key, for an insertion) with the time of its latest edit, or a deletion. Pure;
/// ``StoreSync`` does the I/O.
struct ChangeCollector {
    /// Synced local keys, by entity name; other entities are ignored.
    let syncedKeys: [String: Set<String>]
    /// Objects to save, in the order they first changed, with their keys (`nil`: all).
    private(set) var saves: [(ObjectID, Set<String>?)] = []
    /// Objects deleted (some may never have been uploaded).
    private(set) var deletions: [ObjectID] = []
    private var saveIndex: [ObjectID: Int] = [:]
    /// When each saved object was last edited: the timestamp of the latest transaction that changed it.
    private(set) var editTimes: [ObjectID: Date] = [:]

    init(syncedKeys: [String: Set<String>]) {
        self.syncedKeys = syncedKeys
    }

    /// Adds the changes of one transaction, saved at `timestamp`.
    mutating func add(_ changes: [HistoryChange], at timestamp: Date) {
        for change in changes {
            guard let keys = syncedKeys[change.objectID.entityName] else { continue }
            let id = change.objectID
            switch change.kind {
            case .inserted:
                record(id, keys: nil, at: timestamp)
            case .updated:
                let changed = change.changedKeys.intersection(keys)
                if !changed.isEmpty { record(id, keys: changed, at: timestamp) }
            case .deleted:
                if let position = saveIndex.removeValue(forKey: id) {
                    saves[position].1 = []
                }
                deletions.append(id)
            }
        }
    }

    private mutating func record(_ id: ObjectID, keys: Set<String>?, at timestamp: Date) {
        editTimes[id] = max(editTimes[id] ?? timestamp, timestamp)
        guard let position = saveIndex[id] else {
            saveIndex[id] = saves.count
            saves.append((id, keys))
            return
        }
        if let known = saves[position].1, let keys {
            saves[position].1 = known.union(keys)
        } else {
            saves[position].1 = nil
        }
    }

    /// The saves still wanted (a deleted object's save is dropped).
    var wantedSaves: [(ObjectID, Set<String>?)] {
        saves.filter { $0.1.map { !$0.isEmpty } ?? true }
    }
}
