import Foundation
import StratusPostgres
import StratusServer
@testable import StratusServerPostgres
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// The database's zone-change log stamped with transaction IDs (Documentation/0008, "The database
/// change log from transaction IDs"): writers of different zones of one database do not wait for
/// each other, and a reader never passes a change that commits later, on one node or two.
@Suite(.enabled(if: PostgresScratch.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct PostgresDatabaseLogTests {
    static let database = PostgresRecordStoreSequenceTests.database

    /// A write transaction held open on its connection until the test lets it go.
    final class HeldWrite: Sendable {
        private let release = DispatchSemaphore(value: 0)
        private let started = Mutex<Int64?>(nil)

        /// Runs in the write: notes its transaction ID, then waits for ``letGo()``.
        func hold(_ tx: any RecordStoreWriter) throws {
            let tx = try #require(tx as? PostgresStoreTransaction)
            let row = try #require(try tx.db.queryFirst("SELECT pg_current_xact_id()::text::bigint"))
            let id: Int64 = try row[0]
            started.withLock { $0 = id }
            release.wait()
        }

        /// The held transaction's ID, once it is open.
        func transactionID() async throws -> Int64 {
            for _ in 0..<3_000 {
                if let id = started.withLock({ $0 }) { return id }
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            throw PostgresStoreCorruption(message: "the held write did not start")
        }

        func letGo() { release.signal() }
    }

    /// Creates record `name` in `zone` the way the service does.
    static func create(_ name: String, zone: String, _ tx: any RecordStoreWriter) throws {
        _ = try PostgresGroupCommitTests.create(name, zone: zone, tx)
    }

    /// Waits for `task` up to `seconds`; whether it finished.
    static func finishes(_ task: Task<Void, any Error>, within seconds: Double) async throws -> Bool {
        let done = DoneMarker()
        Task {
            _ = try? await task.value
            done.set()
        }
        for _ in 0..<Int(seconds * 100) where !done.isSet { try await Task.sleep(nanoseconds: 10_000_000) }
        return done.isSet
    }

    /// The changes after `position` once no write in flight holds any back (other tests' writes of
    /// the same cluster hold the horizon too, for as long as they run).
    static func settled(_ store: PostgresRecordStore, after position: DatabaseFeedPosition) async throws -> DatabaseZoneChanges {
        for _ in 0..<2_000 {
            let page = try await store.read { tx in try tx.zoneChanges(in: Self.database, after: position, limit: 100) }
            if page.heldBackThrough == nil { return page }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        throw PostgresStoreCorruption(message: "changes stayed held back for 20 s")
    }

    @Test func aNewerWriteOfAnotherZoneCommitsFirstAndTheReaderLosesNeitherZone() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url(), connections: 4)
        let zones = try await store.write { tx in try ["Older", "Newer"].map { try tx.createZone(named: $0, in: Self.database, createdAt: 1) } }
        var position = DatabaseFeedPosition.start
        let initial = try await Self.settled(store, after: position)
        position = try #require(initial.zones.last.map(DatabaseFeedPosition.init(after:)))

        // The older transaction locks its zone and stays open.
        let held = HeldWrite()
        let older = Task {
            try await store.write { tx in
                try Self.create("o", zone: "Older", tx)
                try held.hold(tx)
            }
        }
        let olderID = try await held.transactionID()
        // A newer one, of another zone of the same database, commits meanwhile: no shared row makes it wait.
        let newer = Task { try await store.write { tx in try Self.create("n", zone: "Newer", tx) } }
        let newerCommitted = try await Self.finishes(newer, within: 20)
        #expect(newerCommitted, "a writer of another zone of the database waited for the open transaction")

        // A reader polling now sees the newer change committed but holds it back behind the older write.
        let between = try await store.read { [position] tx in try tx.zoneChanges(in: Self.database, after: position, limit: 10) }
        if newerCommitted {
            #expect(between.zones.isEmpty, "the feed passed a change that has not committed yet")
            #expect(try #require(between.heldBackThrough) > olderID)
            #expect(between.horizon <= olderID)
        }
        position = between.zones.last.map(DatabaseFeedPosition.init(after:)) ?? position

        held.letGo()
        try await older.value
        try await newer.value
        let after = try await Self.settled(store, after: position)
        #expect(after.zones.map(\.rowID) == zones.map(\.rowID), "the older zone first, then the newer, each once")
        #expect(after.zones.first?.databaseSequence == olderID)
        try await store.close()
    }

    @Test func aTransactionStampsEachZoneOnceAndDeletionsAndCreationsFollowInRowOrder() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url(), connections: 3)
        let original = try await store.write { tx in try tx.createZone(named: "Again", in: Self.database, createdAt: 1) }
        let start = DatabaseFeedPosition(after: original)
        let (replacement, id) = try await store.write { tx in
            // Grouped writes each run in a savepoint: the stamp is the top-level transaction's ID.
            try tx.savepoint { try Self.create("a", zone: "Again", tx) }
            try tx.savepoint { try Self.create("b", zone: "Again", tx) }
            try tx.deleteZone(try #require(try tx.zone(named: "Again", in: Self.database)))
            let replacement = try tx.createZone(named: "Again", in: Self.database, createdAt: 2)
            let tx = try #require(tx as? PostgresStoreTransaction)
            let row = try #require(try tx.db.queryFirst("SELECT pg_current_xact_id()::text::bigint"))
            return (replacement, try row[0] as Int64)
        }
        let page = try await Self.settled(store, after: start)
        #expect(page.zones.map(\.rowID) == [original.rowID, replacement.rowID])
        #expect(page.zones.map(\.isDeleted) == [true, false])
        #expect(page.zones.allSatisfy { $0.databaseSequence == id })
        #expect(replacement.databaseSequence == id)
        try await store.close()
    }

    @Test func tokensFromBeforeTheMigrationKeepTheirMeaning() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url(), connections: 3)
        let names = ["Z1", "Z2", "Z3", "Z4"]
        let zones = try await store.write { tx in try names.map { try tx.createZone(named: $0, in: Self.database, createdAt: 1) } }
        // The schema as the previous version left it: a database counter, zones stamped 1…4 with it.
        _ = try await store.pool.withConnection { db in
            try db.execute(
                """
                DELETE FROM stratus_migrations WHERE identifier = 'pg-v11-database-log-transaction-ids';
                ALTER TABLE databases ADD COLUMN change_seq BIGINT NOT NULL DEFAULT 0;
                UPDATE databases SET change_seq = 4;
                DROP INDEX zones_changes;
                CREATE INDEX zones_changes ON zones (container, environment, scope, owner, db_seq)
                """
            )
            for (index, zone) in zones.enumerated() { try db.execute("UPDATE zones SET db_seq = $1 WHERE id = $2", [Int64(index + 1), zone.rowID]) }
        }
        try await PostgresRecordStoreSchema.migrator.migrate(store.pool)
        // A zone the old counter had numbered 1 changes after the migration.
        try await store.write { tx in try Self.create("later", zone: "Z1", tx) }

        // A client that had read through counter value 2 gets Z3 and Z4, then Z1 again; never Z2.
        let legacy = DatabaseFeedPosition(sequence: 2, zoneRowID: nil)
        let page = try await Self.settled(store, after: legacy)
        #expect(page.zones.map(\.zoneName) == ["Z3", "Z4", "Z1"])
        // From the start: every zone once, in the old order, then the new change.
        let all = try await Self.settled(store, after: .start)
        #expect(all.zones.map(\.zoneName) == ["Z2", "Z3", "Z4", "Z1"])
        // Paging on from a new position continues exactly.
        let rest = try await Self.settled(store, after: DatabaseFeedPosition(after: try #require(all.zones.dropFirst().first)))
        #expect(rest.zones.map(\.zoneName) == ["Z4", "Z1"])
        // The database's row no longer has a counter; quota checks still lock it.
        let columns = try await store.pool.withConnection { db in
            try db.query("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'databases'")
                .map { try $0[0] as String }
        }
        #expect(!columns.contains("change_seq"))
        try await store.write { tx in _ = try tx.usage(of: Self.database) }
        try await store.close()
    }

    @Test func aTailingReaderOfTwoNodesWritingManyZonesGetsEveryChangeOnce() async throws {
        let url = try PostgresTestDatabase.url()
        let first = try await PostgresRecordStore.openTemporary(url: url, connections: 4)
        let second = try await PostgresRecordStore.open(url: url, schema: first.schema, connections: 4)
        let names = (0..<6).map { "Z\($0)" }
        _ = try await first.write { tx in try names.map { try tx.createZone(named: $0, in: Self.database, createdAt: 1) } }
        let done = DoneMarker()
        async let tail = Self.tail(second, until: done)
        let committed = CommitLog()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<48 {
                let node = writer % 2 == 0 ? first : second
                let zone = names[writer % names.count]
                group.addTask {
                    try await node.write(in: Self.database, zone: zone) { tx in
                        let id = try PostgresGroupCommitTests.transactionID(tx)
                        committed.note(writer: writer, zone: zone, id: Int64(id) ?? -1)
                        try Self.create("w\(writer)", zone: zone, tx)
                    }
                }
            }
            try await group.waitForAll()
        }
        done.set()
        let seen = try await tail
        let positions = seen.map { [$0.databaseSequence, $0.rowID] }
        #expect(positions == positions.sorted { $0.lexicographicallyPrecedes($1) }, "the feed went back")
        #expect(Set(positions).count == positions.count, "a position came twice")
        // Every committed change is covered by a later report of its zone; each zone's last report is its final stamp.
        for (zone, id) in committed.last {
            #expect(seen.contains { $0.zoneName == zone && $0.databaseSequence >= id }, "\(zone) changed by \(id) was never reported")
        }
        let final = try await first.read { tx in try tx.zones(in: Self.database) }
        for zone in final {
            #expect(seen.last { $0.rowID == zone.rowID }?.databaseSequence == zone.databaseSequence)
        }
        try await second.close()
        try await first.close()
    }

    /// Follows the database's feed in pages of 3 until `done` and caught up; every zone change it read.
    static func tail(_ store: PostgresRecordStore, until done: DoneMarker) async throws -> [ZoneRow] {
        var seen: [ZoneRow] = []
        var position = DatabaseFeedPosition.start
        while true {
            let finished = done.isSet
            let after = position
            let page = try await store.read { tx in try tx.zoneChanges(in: Self.database, after: after, limit: 3) }
            seen += page.zones
            position = page.zones.last.map(DatabaseFeedPosition.init(after:)) ?? position
            if page.zones.isEmpty {
                if finished && page.heldBackThrough == nil { return seen }
                try await Task.sleep(nanoseconds: 2_000_000)
            }
        }
    }
}

/// A flag one task sets and another reads.
final class DoneMarker: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

/// The transaction each writer's write last ran in (a grouped write that failed runs again alone).
final class CommitLog: Sendable {
    private let entries = Mutex<[Int: (zone: String, id: Int64)]>([:])
    func note(writer: Int, zone: String, id: Int64) { entries.withLock { $0[writer] = (zone, id) } }
    var last: [(zone: String, id: Int64)] { entries.withLock { Array($0.values) } }
}
