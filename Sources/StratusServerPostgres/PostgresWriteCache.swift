import StratusServer

/// What a write transaction knows without asking PostgreSQL: records it read under a zone's lock
/// (and wrote since), and each locked zone's change counter.
///
/// Valid only while the transaction holds the zone locks: no other writer can change those rows
/// until commit, so the copies here are the rows. A savepoint that rolls back rolls this back
/// too (``rollBack(to:)``): counters return to their value before it, and records touched inside
/// it are forgotten (read again when next needed).
///
/// ```swift
/// var cache = PostgresWriteCache()
/// cache.learnCounter(41, ofZone: 7)
/// cache.nextSequence(inZone: 7)  // 42, written to the zone row at commit
/// ```
struct PostgresWriteCache {
    struct RecordKey: Hashable {
        var zoneRowID: Int64
        var name: String
    }

    /// A point to roll back to.
    struct Mark {
        fileprivate var journalCount: Int
        fileprivate var counters: [Int64: Int64]
    }

    /// Records read under the lock; `.some(nil)` means "known not to exist".
    private var records: [RecordKey: StoredRecord?] = [:]
    /// The change counter of each zone as this transaction holds it; the zone row catches up at commit.
    private(set) var counters: [Int64: Int64] = [:]
    /// Keys remembered or changed, in order, so that a rolled-back savepoint forgets them.
    private var journal: [RecordKey] = []

    /// The record as cached: `nil` when not cached, `.some(nil)` when known not to exist.
    func record(named name: String, inZone zoneRowID: Int64) -> StoredRecord?? {
        records[RecordKey(zoneRowID: zoneRowID, name: name)]
    }

    /// Whether the record is cached (existing or known missing).
    func contains(named name: String, inZone zoneRowID: Int64) -> Bool {
        records[RecordKey(zoneRowID: zoneRowID, name: name)] != nil
    }

    /// Remembers what the row is (`nil`: no row), as read under the zone's lock.
    mutating func remember(_ record: StoredRecord?, named name: String, inZone zoneRowID: Int64) {
        let key = RecordKey(zoneRowID: zoneRowID, name: name)
        records[key] = .some(record)
        journal.append(key)
    }

    /// Replaces a cached record by the version just written (records not cached stay uncached).
    mutating func wrote(_ record: StoredRecord) {
        guard contains(named: record.recordName, inZone: record.zoneRowID) else { return }
        remember(record, named: record.recordName, inZone: record.zoneRowID)
    }

    /// Forgets a record (it is read from PostgreSQL when next needed).
    mutating func forget(named name: String, inZone zoneRowID: Int64) {
        records[RecordKey(zoneRowID: zoneRowID, name: name)] = nil
    }

    /// Forgets everything about a zone (it was deleted).
    mutating func forgetZone(_ zoneRowID: Int64) {
        records = records.filter { $0.key.zoneRowID != zoneRowID }
        counters[zoneRowID] = nil
    }

    /// Notes the zone's change counter as read (or set) under its lock.
    mutating func learnCounter(_ value: Int64, ofZone zoneRowID: Int64) {
        counters[zoneRowID] = value
    }

    /// The zone's next change sequence if its counter is known, advancing it; `nil` otherwise.
    mutating func nextSequence(inZone zoneRowID: Int64) -> Int64? {
        guard let current = counters[zoneRowID] else { return nil }
        counters[zoneRowID] = current + 1
        return current + 1
    }

    func mark() -> Mark {
        Mark(journalCount: journal.count, counters: counters)
    }

    /// Undoes what happened since `mark`: counters go back, records touched since are forgotten.
    mutating func rollBack(to mark: Mark) {
        counters = mark.counters
        for key in journal[mark.journalCount...] { records[key] = nil }
        journal.removeSubrange(mark.journalCount...)
    }
}
