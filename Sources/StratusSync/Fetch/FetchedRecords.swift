import Foundation
import StratusClient
import StratusWire

/// What a fetch reads: the changes since the committed token, or everything (a forced full sync).
enum FetchScope: Sendable {
    case delta
    /// Every record, re-applied; `recordTypes` limits what is applied (`nil`: all types).
    case full(recordTypes: Set<String>?)
    /// Every record after the server contradicted this device (zone gone, token refused): what the
    /// server no longer has is queued again instead of deleted.
    case recovery
}

/// What a fetch read from the server, before it is applied.
struct FetchedRecords: Sendable {
    /// What a record this device synced but the server did not return means.
    enum Missing: Sendable {
        /// Nothing: a delta names its deletions.
        case ignored
        /// It was deleted while this device was away (the public database's full resync).
        case deleted
        /// The server lost it (a full fetch of the private zone, whose deletions a delta fetch has
        /// just delivered, or a recovery): queue the entity again.
        case lost
        /// The change token expired (the server compacted its log, tombstones with it): a record
        /// this device synced was deleted meanwhile, and its deletion wins over an edit waiting
        /// here (decision 28); a create the server never confirmed (a base without a change tag)
        /// is not the server's to delete, and stays.
        case expired
    }

    var records: [StratusClient.Record]
    /// Deleted record names, with their type when known.
    var deletions: [(name: String, recordType: String?)]
    /// Whether every record is re-applied, even one whose change tag this device already has.
    var full: Bool
    /// The record types applied (`nil`: all).
    var only: Set<String>?
    /// What a synced record the server did not return means.
    var missing: Missing = .ignored
}

/// A fetched batch (or a write-back of resolved conflicts) waiting for the delegate's ``FinishSync``.
struct PendingBatch: Sendable {
    /// What the delivery is.
    enum Kind: Sendable {
        /// Changes fetched from the server: commits the token and the bases.
        case fetch
        /// Records whose resolved version the local store must receive: commits the markers only.
        case writeBack
    }

    var kind: Kind = .fetch
    var startToken: SyncToken?
    var endToken: SyncToken?
    var generation: Int
    var bases: [(String, BaseRecord)] = []
    var removed: [String] = []
    /// References whose target was missing: (target, source).
    var dangling: [(String, String)] = []
    /// Targets that arrived, whose dangling rows can go.
    var arrived: [String] = []
    /// Saves queued again because the server lost their records (recovery).
    var requeue: [OutboxEntry] = []
    /// Outbox entries of records whose deletion won over them, and the conflicts to report.
    var dropped: [Int64] = []
    var discarded: [SyncConflict] = []
    /// Write-back markers delivered.
    var writeBacks: [String] = []
    /// Whether this batch ends a recovery.
    var endsRecovery = false
    /// Whether this batch reaches the end of the change feed: `false` for a part of a long fetch
    /// with more parts to come, whose commit moves the token but is not a completed sync.
    var endsFeed = true
}
