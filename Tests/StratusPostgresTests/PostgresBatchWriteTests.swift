import StratusPostgres
import StratusServer
import StratusServerPostgres
import StratusTesting
import StratusWire
import Testing

/// A batch's records read at once (`prefetchRecords`), change sequences counted in memory and
/// writes queued until the next statement: the guarantees of one-record-at-a-time writes hold.
@Suite(.enabled(if: PostgresScratch.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct PostgresBatchWriteTests {
    static let database = PostgresRecordStoreSequenceTests.database

    struct PlannedFailure: Error {}

    static func record(_ name: String, zone: Int64, sequence: Int64, count: Int64 = 0) -> StoredRecord {
        let stamp = StoredRecord.Stamp(timestamp: sequence, userRecordName: "_owner", deviceID: "d")
        return StoredRecord(
            zoneRowID: zone, recordName: name, recordType: "Note", changeTag: String(sequence, radix: 36),
            fields: ["count": .int64(count)], created: stamp, modified: stamp, changeSequence: sequence
        )
    }

    @Test func concurrentBatchesLeaveNoGapAndAFailedRecordNeitherARowNorANumber() async throws {
        let url = try PostgresTestDatabase.url()
        let store = try await PostgresRecordStore.openTemporary(url: url, connections: 5)
        let zone = try await store.write { tx in try tx.createZone(named: "Hot", in: Self.database, createdAt: 1) }
        let writers = 6
        let batches = 5
        let perBatch = 4  // the third of each batch fails after its write
        let total = Int64(writers * batches * (perBatch - 1))
        async let audit: [Int64] = PostgresRecordStoreSequenceTests.auditFeed(store, zone: zone.rowID, until: total)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for writer in 0..<writers {
                group.addTask {
                    for batch in 0..<batches {
                        try await store.write { tx in
                            let names = (0..<perBatch).map { "r\(writer)-\(batch)-\($0)" }
                            try tx.prefetchRecords(named: names, inZone: zone.rowID)
                            for (index, name) in names.enumerated() {
                                do {
                                    try tx.savepoint {
                                        #expect(try tx.record(named: name, inZone: zone.rowID) == nil)
                                        let sequence = try tx.nextChangeSequence(inZone: zone.rowID)
                                        try tx.putRecord(Self.record(name, zone: zone.rowID, sequence: sequence), references: [])
                                        if index == 2 { throw PlannedFailure() }
                                    }
                                } catch is PlannedFailure {
                                    #expect(try tx.record(named: name, inZone: zone.rowID) == nil)
                                }
                            }
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let seen = try await audit
        #expect(seen == Array(1...total))
        let feed = try await store.read { tx in try tx.recordChanges(inZone: zone.rowID, after: 0, limit: 10_000, recordTypes: nil) }
        #expect(feed.map(\.changeSequence) == Array(1...total))
        #expect(!feed.contains { $0.recordName.hasSuffix("-2") })
        #expect(feed.allSatisfy { $0.changeTag == String($0.changeSequence, radix: 36) })
        let stored = try await store.read { tx in try tx.zone(rowID: zone.rowID) }
        #expect(stored?.changeSequence == total)
        try await store.close()
    }

    @Test func aTransactionQueuingMoreThanOnePipelineOfWritesFlushesThemAllInOrder() async throws {
        let url = try PostgresTestDatabase.url()
        let store = try await PostgresRecordStore.openTemporary(url: url, connections: 2)
        let count = 300  // about four statements each: more than one flush
        let zone = try await store.write { tx in
            let zone = try tx.createZone(named: "Many", in: Self.database, createdAt: 1)
            let names = (0..<count).map { "m\($0)" }
            try tx.prefetchRecords(named: names, inZone: zone.rowID)
            for name in names {
                try tx.putRecord(Self.record(name, zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID)), references: [])
            }
            return zone
        }
        let feed = try await store.read { tx in try tx.recordChanges(inZone: zone.rowID, after: 0, limit: 10_000, recordTypes: nil) }
        #expect(feed.map(\.recordName) == (0..<count).map { "m\($0)" })
        #expect(try await store.read { tx in try tx.zone(rowID: zone.rowID)?.changeSequence } == Int64(count))
        try await store.close()
    }

    @Test func aPrefetchedRecordReadsAsLastWrittenAndAsBeforeAfterARollback() async throws {
        let url = try PostgresTestDatabase.url()
        let store = try await PostgresRecordStore.openTemporary(url: url, connections: 2)
        let zone = try await store.write { tx in
            let zone = try tx.createZone(named: "Cache", in: Self.database, createdAt: 1)
            try tx.putRecord(Self.record("a", zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID), count: 1), references: [])
            try tx.putRecord(Self.record("b", zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID), count: 1), references: [])
            return zone
        }
        let seen = try await store.write { tx -> [Int64] in
            try tx.prefetchRecords(named: ["a", "b", "missing"], inZone: zone.rowID)
            #expect(try tx.zone(rowID: zone.rowID)?.changeSequence == 2)
            var counts: [Int64] = []
            func count(_ name: String) throws -> Int64 {
                guard case .int64(let value) = try tx.record(named: name, inZone: zone.rowID)?.fields["count"] else { return -1 }
                return value
            }
            try tx.putRecord(Self.record("a", zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID), count: 2), references: [])
            counts.append(try count("a"))  // 2: the version just written
            #expect(try tx.zone(rowID: zone.rowID)?.changeSequence == 3)
            _ = try? tx.savepoint {
                try tx.putRecord(Self.record("a", zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID), count: 9), references: [])
                try tx.deleteRecord(
                    named: "b", inZone: zone.rowID, modified: .init(timestamp: 5, userRecordName: "_owner", deviceID: "d"),
                    sequence: try tx.nextChangeSequence(inZone: zone.rowID)
                )
                throw PlannedFailure()
            }
            counts.append(try count("a"))  // 2 again: the savepoint's write is gone
            counts.append(try count("b"))  // 1: its deletion too
            counts.append(try tx.record(named: "missing", inZone: zone.rowID) == nil ? 0 : -1)
            #expect(try tx.nextChangeSequence(inZone: zone.rowID) == 4)  // the rolled-back numbers are handed out again
            return counts
        }
        #expect(seen == [2, 2, 1, 0])
        let after = try await store.read { tx in
            (try tx.zone(rowID: zone.rowID)?.changeSequence, try tx.record(named: "a", inZone: zone.rowID)?.changeSequence)
        }
        #expect(after.0 == 4)
        #expect(after.1 == 3)
        try await store.close()
    }
}
