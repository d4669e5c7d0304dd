import Foundation
import StratusPostgres
import StratusServer
@testable import StratusServerPostgres
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// A group of writes of one zone reads what their hints name in its first locking read, and its
/// writes stay buffered across their savepoints (Documentation/0008, "One locking read per group"):
/// later writes send nothing, yet each write still sees the ones before it, fails alone, and the
/// zone's feed, counters and usage come out as a serial execution's.
@Suite(.enabled(if: PostgresScratch.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct PostgresGroupReadsTests {
    static let database = PostgresRecordStoreSequenceTests.database

    struct PlannedFailure: Error {}

    /// What one write saw: whether it ran first in its transaction, its round trips, the counter it read, the subscription answer;
    /// whether it then failed.
    struct Seen: Sendable {
        var first: Bool
        var failed: Bool
        var roundTrips: Int
        var counter: Int64
        var watched: Bool
    }

    /// Collects what each write saw, from any task.
    final class Log: Sendable {
        private let entries = Mutex<[Int: Seen]>([:])
        func note(_ writer: Int, _ seen: Seen) { entries.withLock { $0[writer] = seen } }
        var all: [Int: Seen] { entries.withLock { $0 } }
    }

    static func hint(_ writer: Int) -> RecordWriteHint {
        RecordWriteHint(recordNames: ["counter", "w\(writer)"], recordTypes: ["Note"])
    }

    static func count(of record: StoredRecord?) -> Int64 {
        guard case .int64(let value)? = record?.fields["count"] else { return 0 }
        return value
    }

    /// As the service writes: the zone by name, the announced question, the lock and read; then one
    /// shared record every writer increments, one record of its own, 10 bytes of usage, the question.
    /// With `failing`, the first write of each group and every fourth write fail after writing (rolled back to their savepoints).
    static func write(_ writer: Int, zone name: String, failing: Bool, log: Log, _ tx: any RecordStoreWriter) throws {
        let postgres = try #require(tx as? PostgresStoreTransaction)
        let first = postgres.groupReads != nil
        let before = postgres.db.roundTrips
        let zone = try #require(try tx.zone(named: name, in: database))
        try tx.prefetchSubscriptionCandidates(in: database, zoneName: name, recordTypes: ["Note"])
        try tx.prefetchRecords(named: ["counter", "w\(writer)"], inZone: zone.rowID)
        let counter = count(of: try tx.record(named: "counter", inZone: zone.rowID))
        let record = PostgresBatchWriteTests.record
        try tx.putRecord(record("counter", zone.rowID, try tx.nextChangeSequence(inZone: zone.rowID), counter + 1), references: [])
        #expect(try tx.record(named: "w\(writer)", inZone: zone.rowID) == nil)
        try tx.putRecord(record("w\(writer)", zone.rowID, try tx.nextChangeSequence(inZone: zone.rowID), Int64(writer)), references: [])
        try tx.addUsage(StorageUsage(recordBytes: 10), zoneRowID: zone.rowID)
        let watched = try tx.hasSubscription(watching: "Note", in: database, zoneName: name)
        let fails = failing && (first || writer % 4 == 1)
        log.note(writer, Seen(first: first, failed: fails, roundTrips: postgres.db.roundTrips - before, counter: counter, watched: watched))
        if fails { throw PlannedFailure() }
    }

    /// Runs `writers` hinted writes of `zone` queued behind a held write, so that they run as one group.
    static func runGroup(_ store: PostgresRecordStore, zone: ZoneRow, writers: Int, failing: Bool, log: Log) async throws -> [Int: Bool] {
        try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            group.addTask {
                try await PostgresGroupCommitTests.holdQueue(store, zone: zone.zoneName, row: zone.rowID)
                return (-1, true)
            }
            try await Task.sleep(nanoseconds: 50_000_000)
            for writer in 0..<writers {
                group.addTask {
                    do {
                        try await store.write(in: Self.database, zone: zone.zoneName, reading: Self.hint(writer)) { tx in
                            try Self.write(writer, zone: zone.zoneName, failing: failing, log: log, tx)
                        }
                        return (writer, true)
                    } catch is PlannedFailure {
                        return (writer, false)
                    }
                }
            }
            return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
    }

    /// The zone's feed, its counter record and its usage counter, as committed.
    static func committed(_ store: PostgresRecordStore, zone: ZoneRow) async throws -> (feed: [StoredRecord], counter: Int64, usage: Int64) {
        let (feed, counter) = try await store.read { tx in
            (
                try tx.recordChanges(inZone: zone.rowID, after: 0, limit: 1_000, recordTypes: nil),
                Self.count(of: try tx.record(named: "counter", inZone: zone.rowID))
            )
        }
        let admin = try PostgresConnection(url: try PostgresTestDatabase.url())
        let row = try admin.queryFirst("SELECT record_bytes FROM \(try #require(store.schema)).zone_usage WHERE zone_id = $1", [zone.rowID])
        return (feed, counter, try row.map { try $0[0] as Int64 } ?? 0)
    }

    /// The feed of `writes` writes that took two numbers each: each writer's own record has its
    /// second (even) number, the counter the last odd one.
    static func numbered(_ feed: [StoredRecord], writes: Int) -> Bool {
        let own = feed.filter { $0.recordName != "counter" }.map(\.changeSequence).sorted()
        let counter = feed.first { $0.recordName == "counter" }?.changeSequence
        return own == (1...Int64(writes)).map { 2 * $0 } && counter == 2 * Int64(writes) - 1
    }

    @Test func laterWritesOfAGroupSendNothingAndStillSeeTheWritesBeforeThem() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url(), connections: 3)
        let zone = try await store.write { tx in
            try tx.putSubscription(PostgresLockPipelineTests.watching("Note"))
            return try tx.createZone(named: "Grouped", in: Self.database, createdAt: 1)
        }
        let writers = 12
        let log = Log()
        let outcomes = try await Self.runGroup(store, zone: zone, writers: writers, failing: false, log: log)
        for writer in 0..<writers { #expect(outcomes[writer] == true) }
        let seen = log.all
        // Each write read the counter its predecessors left, whoever of them ran in which group.
        #expect(seen.values.map(\.counter).sorted() == (0..<Int64(writers)).map { $0 })
        let watched = seen.values.map(\.watched)
        #expect(!watched.contains(false))
        // Only a group's first write went to PostgreSQL (zone and schema; lock and the group's reads).
        let later = seen.values.filter { !$0.first }
        #expect(later.count >= writers - 2)
        let laterTrips = later.map(\.roundTrips)
        #expect(laterTrips.allSatisfy { $0 == 0 })
        let (feed, counter, usage) = try await Self.committed(store, zone: zone)
        #expect(counter == Int64(writers))
        #expect(usage == 10 * Int64(writers))
        // Two numbers per write, none skipped: every writer's own record and the counter's last change.
        #expect(Set(feed.map(\.recordName)) == Set((0..<writers).map { "w\($0)" } + ["counter"]))
        #expect(Self.numbered(feed, writes: writers))
        #expect(try await store.read { tx in try tx.zone(rowID: zone.rowID)?.changeSequence } == 2 * Int64(writers))
        try await store.close()
    }

    @Test func writesThatRollBackLeaveTheOthersAsASerialExecutionWouldEvenTheGroupsFirst() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url(), connections: 3)
        let zone = try await store.write { tx in try tx.createZone(named: "Undone", in: Self.database, createdAt: 1) }
        let writers = 10
        let log = Log()
        let outcomes = try await Self.runGroup(store, zone: zone, writers: writers, failing: true, log: log)
        let seen = log.all
        let failed = Set(seen.filter(\.value.failed).map(\.key))
        let firstFailed = seen.values.contains { $0.first && $0.failed }
        #expect(firstFailed)
        #expect(failed.count >= 3)
        for writer in 0..<writers { #expect(outcomes[writer] == !failed.contains(writer)) }
        // A write after a failed first one found the lock and the reads gone and read again; after a failed
        // later one, the writes before it (sent or buffered) were kept and seen.
        let succeeded = writers - failed.count
        #expect(seen.filter { !failed.contains($0.key) }.map(\.value.counter).sorted() == (0..<Int64(succeeded)).map { $0 })
        let watched = seen.values.map(\.watched)
        #expect(!watched.contains(true))
        let (feed, counter, usage) = try await Self.committed(store, zone: zone)
        #expect(counter == Int64(succeeded))
        #expect(usage == 10 * Int64(succeeded))
        #expect(Set(feed.map(\.recordName)) == Set((0..<writers).filter { !failed.contains($0) }.map { "w\($0)" } + ["counter"]))
        #expect(Self.numbered(feed, writes: succeeded))
        #expect(try await store.read { tx in try tx.zone(rowID: zone.rowID)?.changeSequence } == 2 * Int64(succeeded))
        try await store.close()
    }
}
