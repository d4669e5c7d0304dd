public import Foundation

/// Where sync stands, as ``SyncController/statusUpdates()`` reports it.
public struct SyncStatus: Sendable, Equatable, CustomStringConvertible {
    /// Whether an upload or fetch is running.
    public var isSyncing = false
    /// Whether sync is paused (changes wait in the outbox).
    public var isPaused = false
    /// Saves and deletes waiting in the outbox.
    public var pendingCount = 0
    /// When the last sync was committed (by ``FinishSync``).
    public var lastSyncDate: Date?
    /// Whether nothing is pending and the server's latest change has been applied and committed.
    public var isCaughtUp = false
    /// The last failure, cleared by the next successful sync.
    public var lastError: String?

    /// Creates a status.
    public init() {}

    /// A one-line summary.
    public var description: String {
        "SyncStatus(syncing: \(isSyncing), paused: \(isPaused), pending: \(pendingCount), caughtUp: \(isCaughtUp)"
            + (lastError.map { ", error: \($0)" } ?? "") + ")"
    }
}
