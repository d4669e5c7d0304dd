import StratusPostgres
import StratusServer
import Synchronization

/// Runs concurrent writes of one zone that arrive at this node while one of them is in
/// flight as one PostgreSQL transaction (group commit).
///
/// Each write runs in its own savepoint inside the shared transaction, in arrival order, so it
/// sees the writes before it and a failure of its own (a change-tag conflict, an atomic batch
/// that fails) undoes only itself: the result is exactly a serial execution. Callers learn
/// their outcome only after the shared `COMMIT`: nothing is acknowledged that is not durable.
/// Savepoints are queued, so they cost no round trip.
///
/// The group's first locking read also reads what every write's ``RecordWriteHint`` names (its
/// records, and the push outbox's subscription question per type), and the writes' buffered
/// record writes stay buffered across their savepoints (`PostgresRecordWrites` marks them), so a
/// later write that reads nothing else sends nothing: a group of single-record creates is three
/// round trips in all, and its record and index rows go out as one multi-row statement per table
/// with the `COMMIT` (Documentation/0008, "One locking read per group").
///
/// Why: writers of one zone take turns under its row lock for a whole transaction, its `COMMIT`
/// included; eight clients each saving one record to a zone
/// take eight turns without this, one with it (Documentation/0008, "Group commit").
///
/// - A group is one zone's writes; different zones' groups run side by side, as lone writes did
///   (grouping a database's zones was measured slower: their reads went one after another).
/// - After the first, a write may lock only zones after every zone the group holds, and none once
///   the group holds the `databases` row (a quota check's; `PostgresStoreTransaction.claimLock`); asking otherwise
///   puts it in the next group. So groups on different nodes lock in one order and do not deadlock.
/// - If a statement fails anywhere in the group (even one a write caught), or the `COMMIT` is
///   refused, nothing committed: each write of the group runs again alone, in its own transaction
///   with the store's retries, so a failure is reported by the write it belongs to. A lost
///   connection at the `COMMIT` is reported to every write of the group, as to a lone write.
/// - A group of one is a lone write, exactly as without grouping.
final class PostgresWriteCoalescer: Sendable {
    /// One queued write.
    struct Member: Sendable {
        /// What the write will read: the group reads it for every write at once.
        let hint: RecordWriteHint
        /// Runs the write in a savepoint of the group's transaction; `nil` when it must wait for a later group.
        let run: @Sendable (PostgresStoreTransaction) -> (@Sendable () -> Void)?
        /// Runs the write alone and resumes its caller.
        let alone: @Sendable () async -> Void
        /// Resumes the caller with the group's failure.
        let fail: @Sendable (any Error) -> Void
    }

    private struct Queue {
        var pending: [Member] = []
        var draining = false
    }

    private let state = Mutex([ZoneName: Queue]())
    /// The most writes one transaction takes, so that one group does not hold its locks for long.
    static let maximumGroupSize = 32

    /// Runs `body` in `store`, alone or in a group with other writes of `zone` (always the same store).
    func write<T: Sendable>(
        in zone: ZoneName, hint: RecordWriteHint, store: PostgresRecordStore, _ body: @escaping @Sendable (any RecordStoreWriter) throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let member = Member(
                hint: hint,
                run: { tx in
                    tx.lockOrderRefused = false
                    do {
                        let value = try tx.savepoint {
                            let value = try body(tx)
                            // Refused even if the write caught it: the whole write waits for a later group.
                            if tx.lockOrderRefused { throw PostgresLockOrderDeferral() }
                            return value
                        }
                        return { continuation.resume(returning: value) }
                    } catch {
                        if tx.lockOrderRefused { return nil }
                        return { continuation.resume(throwing: error) }
                    }
                },
                alone: { [store] in
                    do {
                        continuation.resume(returning: try await store.write(body))
                    } catch {
                        continuation.resume(throwing: error)
                    }
                },
                fail: { error in continuation.resume(throwing: error) }
            )
            enqueue([member], in: zone, store: store, first: false)
        }
    }

    /// Queues writes (deferred ones ahead of the rest) and starts draining the zone's queue if idle.
    private func enqueue(_ members: [Member], in zone: ZoneName, store: PostgresRecordStore, first: Bool) {
        let start = state.withLock { queues -> Bool in
            var queue = queues[zone] ?? Queue()
            queue.pending = first ? members + queue.pending : queue.pending + members
            let start = !queue.draining
            queue.draining = true
            queues[zone] = queue
            return start
        }
        if start { Task { await self.drain(zone, store: store) } }
    }

    private func drain(_ zone: ZoneName, store: PostgresRecordStore) async {
        while let group = nextGroup(of: zone) {
            if group.count == 1 {
                await group[0].alone()
            } else {
                await runTogether(group, in: zone, store: store)
            }
        }
    }

    /// Takes up to ``maximumGroupSize`` queued writes, or stops draining when none are left.
    private func nextGroup(of zone: ZoneName) -> [Member]? {
        state.withLock { queues in
            guard var queue = queues[zone], !queue.pending.isEmpty else {
                queues[zone] = nil
                return nil
            }
            let count = min(Self.maximumGroupSize, queue.pending.count)
            let group = Array(queue.pending.prefix(count))
            queue.pending.removeFirst(count)
            queues[zone] = queue
            return group
        }
    }

    private func runTogether(_ group: [Member], in zone: ZoneName, store: PostgresRecordStore) async {
        let resumes: [(@Sendable () -> Void)?]
        do {
            let reads = PostgresGroupReads(zone: zone, hints: group.map(\.hint))
            resumes = try await store.transaction { tx in
                tx.groupReads = reads
                var resumes: [(@Sendable () -> Void)?] = []
                for (index, member) in group.enumerated() {
                    tx.locksInOrderOnly = index > 0
                    let failures = tx.db.failures
                    resumes.append(member.run(tx))
                    if tx.db.failures != failures || tx.transientFailure != nil { throw GroupAbandoned() }
                }
                return resumes
            }
        } catch let error as PostgresError where error.code == .connectionLost || error.code == .connectionFailure {
            group.forEach { $0.fail(error) }
            return
        } catch {
            // Nothing committed: each write on its own, so each failure is its own.
            for member in group { await member.alone() }
            return
        }
        var deferred: [Member] = []
        for (member, resume) in zip(group, resumes) {
            if let resume { resume() } else { deferred.append(member) }
        }
        if !deferred.isEmpty { enqueue(deferred, in: zone, store: store, first: true) }
    }

    /// A write of the group met a database error: the group rolls back and its writes run alone.
    private struct GroupAbandoned: Error {}
}
