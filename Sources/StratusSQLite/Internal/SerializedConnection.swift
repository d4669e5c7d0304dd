import Dispatch
import Synchronization

/// A connection confined to its own serial dispatch queue.
///
/// Every use of the connection runs as a block on `queue`, so SQLite's blocking calls
/// (disk I/O, lock waits) never occupy a thread of Swift's cooperative pool: async
/// callers suspend on a continuation while the block runs.
// `connection` is created before the object is shared and is afterwards touched only from
// blocks running on the serial `queue` (`sync` and `perform` are the only accessors).
// Safety: every use of the non-Sendable connection runs on one serial queue, one at a time.
final class SerializedConnection: @unchecked Sendable {
    private let queue: DispatchQueue
    private let connection: SQLiteConnection
    private let onQueueKey = DispatchSpecificKey<Bool>()
    /// Blocks queued by ``sync(_:)``, ``enqueue(_:)`` or ``perform(_:completion:)`` that have not started yet.
    private let queued = Atomic<Int>(0)
    let label: String

    init(label: String, connection: SQLiteConnection) {
        self.label = label
        self.connection = connection
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: onQueueKey, value: true)
    }

    /// The number of blocks waiting for the queue (queued, not started): work that waits for this connection.
    var backlog: Int { queued.load(ordering: .relaxed) }

    /// Whether the caller is running on this connection's queue.
    var isOnQueue: Bool { DispatchQueue.getSpecific(key: onQueueKey) == true }

    /// Runs `body` on the queue and waits, blocking the calling thread.
    func sync<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        precondition(
            !isOnQueue,
            "re-entrant database access on \(label): a synchronous read or write was started from inside another access to the same connection")
        queued.add(1, ordering: .relaxed)
        return try queue.sync {
            queued.subtract(1, ordering: .relaxed)
            return try body(connection)
        }
    }

    /// Queues `body` to run on the queue and returns at once; nobody waits for it.
    func enqueue(_ body: @escaping @Sendable (SQLiteConnection) -> Void) {
        queued.add(1, ordering: .relaxed)
        queue.async {
            self.queued.subtract(1, ordering: .relaxed)
            body(self.connection)
        }
    }

    /// Runs `body` on the queue while the calling task suspends.
    ///
    /// - Parameters:
    ///   - body: The work, run on the queue.
    ///   - completion: Runs on the queue right after `body`, before the caller resumes.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    func perform<Result: Sendable>(
        _ body: @escaping @Sendable (SQLiteConnection) throws -> Result,
        completion: (@Sendable () -> Void)? = nil
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            queued.add(1, ordering: .relaxed)
            queue.async {
                self.queued.subtract(1, ordering: .relaxed)
                let result = Swift.Result { try body(self.connection) }
                completion?()
                continuation.resume(with: result)
            }
        }
    }
}
