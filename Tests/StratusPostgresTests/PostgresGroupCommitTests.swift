import Foundation
import StratusPostgres
import StratusServer
@testable import StratusServerPostgres
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// Concurrent writes of one zone grouped into one transaction (`RecordStore.write(in:zone:)`,
/// Documentation/0008, "Group commit"): each write succeeds or fails on its own, feeds stay
/// gap-free and in commit order, a change-tag race has one winner, across two nodes.
@Suite(.enabled(if: PostgresScratch.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct PostgresGroupCommitTests {
    static let database = PostgresRecordStoreSequenceTests.database

    struct PlannedFailure: Error {}

    /// The transaction IDs writes ran in, from any task.
    final class TransactionLog: Sendable {
        private let ids = Mutex<[String]>([])
        func note(_ id: String) { ids.withLock { $0.append(id) } }
        var distinct: Int { ids.withLock { Set($0).count } }
    }

    /// The PostgreSQL transaction a write runs in.
    static func transactionID(_ tx: any RecordStoreWriter) throws -> String {
        let tx = try #require(tx as? PostgresStoreTransaction)
        let row = try #require(try tx.db.queryFirst("SELECT pg_current_xact_id()::text"))
        return try row[0]
    }

    /// A write that holds its database's queue on this node for a while, so that the writes
    /// started meanwhile wait and run as one group.
    static func holdQueue(_ store: PostgresRecordStore, zone: String, row: Int64) async throws {
        try await store.write(in: database, zone: zone) { tx in
            _ = try tx.record(named: "holder", inZone: row)
            Thread.sleep(forTimeInterval: 0.3)
        }
    }

    /// Creates `name` in `zone` as the service does (the zone looked up by name, the lock and read, a number, the row).
    static func create(_ name: String, zone: String, _ tx: any RecordStoreWriter) throws -> Int64 {
        let row = try #require(try tx.zone(named: zone, in: database))
        try tx.prefetchRecords(named: [name], inZone: row.rowID)
        #expect(try tx.record(named: name, inZone: row.rowID) == nil)
        let sequence = try tx.nextChangeSequence(inZone: row.rowID)
        try tx.putRecord(PostgresBatchWriteTests.record(name, zone: row.rowID, sequence: sequence), references: [])
        return sequence
    }

    /// Zones in descending order first, so that later writes of a group ask for locks out of order.
    static func zoneIndex(_ writer: Int) -> Int { writer < 8 ? 3 - writer % 4 : (writer * 7) % 4 }

    static func fails(_ writer: Int) -> Bool { writer % 5 == 3 }

    @Test func groupedWritesOfOneAndOfSeveralZonesOnTwoNodesEachSucceedOrFailAloneAndLeaveNoGap() async throws {
        let url = try PostgresTestDatabase.url()
        let first = try await PostgresRecordStore.openTemporary(url: url, connections: 4)
        let second = try await PostgresRecordStore.open(url: url, schema: first.schema, connections: 4)
        let names = ["Z0", "Z1", "Z2", "Z3"]
        let zones = try await first.write { tx in try names.map { try tx.createZone(named: $0, in: Self.database, createdAt: 1).rowID } }
        let writers = 48
        var counts = [Int64](repeating: 0, count: names.count)
        for writer in 0..<writers where !Self.fails(writer) { counts[Self.zoneIndex(writer)] += 1 }
        let expected = counts
        let transactions = TransactionLog()
        async let audits: [[Int64]] = withThrowingTaskGroup(of: [Int64].self) { group in
            for (index, zone) in zones.enumerated() {
                group.addTask { try await PostgresRecordStoreSequenceTests.auditFeed(first, zone: zone, until: expected[index]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for (index, zone) in zones.enumerated() {
                for node in [first, second] {
                    group.addTask {
                        try await Self.holdQueue(node, zone: names[index], row: zone)
                        return (-1, true)
                    }
                }
            }
            try await Task.sleep(nanoseconds: 50_000_000)
            for writer in 0..<writers {
                let node = writer % 2 == 0 ? first : second
                group.addTask {
                    do {
                        try await node.write(in: Self.database, zone: names[Self.zoneIndex(writer)]) { tx in
                            let id = try Self.transactionID(tx)
                            transactions.note(id)
                            _ = try Self.create("w\(writer)", zone: names[Self.zoneIndex(writer)], tx)
                            if Self.fails(writer) { throw PlannedFailure() }
                        }
                        return (writer, true)
                    } catch is PlannedFailure {
                        return (writer, false)
                    }
                }
            }
            return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        for writer in 0..<writers { #expect(outcomes[writer] == !Self.fails(writer)) }
        let seen = try await audits
        #expect(seen.map { Int64($0.count) }.sorted() == expected.sorted())
        for (index, zone) in zones.enumerated() {
            let feed = try await first.read { tx in try tx.recordChanges(inZone: zone, after: 0, limit: 1_000, recordTypes: nil) }
            #expect(feed.map(\.changeSequence) == Array(stride(from: 1, through: expected[index], by: 1)))
            let wanted = Set((0..<writers).filter { !Self.fails($0) && Self.zoneIndex($0) == index }.map { "w\($0)" })
            #expect(Set(feed.map(\.recordName)) == wanted)
            #expect(try await first.read { tx in try tx.zone(rowID: zone)?.changeSequence } == expected[index])
        }
        // The database's zone feed: one position per change, none twice.
        let positions = try await second.read { tx in
            try tx.zoneChanges(in: Self.database, after: .start, limit: 100).zones.map { [$0.databaseSequence, $0.rowID] }
        }
        #expect(positions == positions.sorted { $0.lexicographicallyPrecedes($1) } && Set(positions).count == positions.count)
        // Writes did share transactions (each runs once, or again alone after a group failed).
        #expect(transactions.distinct < writers)
        try await second.close()
        try await first.close()
    }

    @Test func aChangeTagRaceInOneGroupHasOneWinner() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url(), connections: 3)
        let zone = try await store.write { tx in
            let zone = try tx.createZone(named: "Race", in: Self.database, createdAt: 1)
            try tx.putRecord(PostgresBatchWriteTests.record("r", zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID)), references: [])
            return zone
        }
        let racers = 20
        let transactions = TransactionLog()
        let winners = try await withThrowingTaskGroup(of: Int?.self) { group in
            group.addTask {
                try await Self.holdQueue(store, zone: "Race", row: zone.rowID)
                return nil
            }
            try await Task.sleep(nanoseconds: 50_000_000)
            for racer in 0..<racers {
                group.addTask {
                    do {
                        try await store.write(in: Self.database, zone: "Race") { tx in
                            let id = try Self.transactionID(tx)
                            transactions.note(id)
                            try tx.prefetchRecords(named: ["r"], inZone: zone.rowID)
                            // Compare the tag read under the lock with the one the racer started from ("1").
                            guard try tx.record(named: "r", inZone: zone.rowID)?.changeTag == "1" else { throw PlannedFailure() }
                            let sequence = try tx.nextChangeSequence(inZone: zone.rowID)
                            try tx.putRecord(PostgresBatchWriteTests.record("r", zone: zone.rowID, sequence: sequence, count: Int64(racer)), references: [])
                        }
                        return racer
                    } catch is PlannedFailure {
                        return nil
                    }
                }
            }
            return try await group.reduce(into: [Int]()) { if let winner = $1 { $0.append(winner) } }
        }
        #expect(winners.count == 1)
        let stored = try await store.read { tx in try tx.record(named: "r", inZone: zone.rowID) }
        #expect(stored?.changeSequence == 2)
        #expect(stored?.fields["count"] == .int64(Int64(winners.first ?? -1)))
        #expect(transactions.distinct < racers)
        try await store.close()
    }

    @Test func aDatabaseErrorInOneGroupedWriteFailsThatWriteOnly() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url(), connections: 3)
        let zone = try await store.write { tx in try tx.createZone(named: "Mixed", in: Self.database, createdAt: 1) }
        let writers = 12
        let broken = 5
        let outcomes = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            group.addTask {
                try await Self.holdQueue(store, zone: "Mixed", row: zone.rowID)
                return (-1, true)
            }
            try await Task.sleep(nanoseconds: 50_000_000)
            for writer in 0..<writers {
                group.addTask {
                    do {
                        try await store.write(in: Self.database, zone: "Mixed") { tx in
                            _ = try Self.create("w\(writer)", zone: "Mixed", tx)
                            // A statement PostgreSQL refuses, its error swallowed: the transaction is failed all the same.
                            if writer == broken { _ = try? (tx as? PostgresStoreTransaction)?.db.query("SELECT no_such_column FROM zones") }
                        }
                        return (writer, true)
                    } catch is PostgresError {
                        return (writer, false)
                    }
                }
            }
            return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        for writer in 0..<writers { #expect(outcomes[writer] == (writer != broken)) }
        let feed = try await store.read { tx in try tx.recordChanges(inZone: zone.rowID, after: 0, limit: 100, recordTypes: nil) }
        #expect(feed.map(\.changeSequence) == Array(1...Int64(writers - 1)))
        #expect(Set(feed.map(\.recordName)) == Set((0..<writers).filter { $0 != broken }.map { "w\($0)" }))
        try await store.close()
    }
}
