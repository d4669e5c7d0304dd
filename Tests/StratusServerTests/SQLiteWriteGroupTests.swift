import Foundation
import StratusServer
@testable import StratusServerSQLite
import StratusSQLite
import StratusTesting
import StratusWire
import Testing

/// The SQLite writer's group commit as the authenticated write path left it (issue 20, round
/// three): groups drained on the writer's own queue, a write alone in its group run without a
/// savepoint, and the change-log move at commit in fewer statements.
@Suite struct SQLiteWriteGroupTests {
    static let database = DatabaseKey(container: "iCloud.com.example.Group", environment: .development, scope: .private, owner: "_owner")

    struct PlannedFailure: Error {}

    static func record(_ name: String, zone: Int64, sequence: Int64) -> StoredRecord {
        let stamp = StoredRecord.Stamp(timestamp: sequence, userRecordName: "_owner", deviceID: "d")
        return StoredRecord(
            zoneRowID: zone, recordName: name, recordType: "Note", changeTag: String(sequence, radix: 36),
            fields: ["n": .int64(sequence)], created: stamp, modified: stamp, changeSequence: sequence
        )
    }

    static func withStore(_ body: (SQLiteRecordStore) async throws -> Void) async throws {
        try await RecordStoreBackend.sqlite.withStore(prefix: "write-group") { store in try await body(try #require(store as? SQLiteRecordStore)) }
    }

    /// The database's change log and the zone's place in it.
    static func positions(_ store: SQLiteRecordStore, zone: Int64) async throws -> (database: Int64, zone: Int64, records: Int64) {
        try await store.pool.read { db in
            let database = try db.fetchOne(Int64.self, "SELECT change_seq FROM databases WHERE owner = '_owner'") ?? -1
            let zoneRow = try db.fetchOne(Int64.self, "SELECT db_seq FROM zones WHERE id = ?", [zone]) ?? -1
            let records = try db.fetchOne(Int64.self, "SELECT change_seq FROM zones WHERE id = ?", [zone]) ?? -1
            return (database, zoneRow, records)
        }
    }

    @Test func aWriteAloneThatFailsLeavesNothingAndGetsItsOwnError() async throws {
        try await Self.withStore { store in
            let zone = try await store.write { tx in try tx.createZone(named: "Z", in: Self.database, createdAt: 1) }
            try await store.write { tx in
                try tx.putRecord(Self.record("kept", zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID)), references: [])
            }
            let before = try await Self.positions(store, zone: zone.rowID)
            #expect(before.records == 1)
            #expect(before.zone == before.database)
            await #expect(throws: PlannedFailure.self) {
                try await store.write { tx in
                    try tx.putRecord(Self.record("lost", zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID)), references: [])
                    throw PlannedFailure()
                }
            }
            let after = try await Self.positions(store, zone: zone.rowID)
            // Neither the record, nor its number, nor a move of the zone in the database's change log.
            #expect(after.database == before.database)
            #expect(after.zone == before.zone)
            #expect(after.records == before.records)
            #expect(try await store.read { tx in try tx.record(named: "lost", inZone: zone.rowID) } == nil)
            // The writer is usable afterwards, and numbers go on from the last committed one.
            try await store.write { tx in
                try tx.putRecord(Self.record("next", zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID)), references: [])
            }
            let next = try await store.read { tx in try tx.record(named: "next", inZone: zone.rowID) }
            #expect(next?.changeSequence == 2)
            let last = try await Self.positions(store, zone: zone.rowID)
            #expect(last.database == before.database + 1)
            #expect(last.zone == last.database)
        }
    }

    @Test func concurrentWritesWithFailuresAmongThemKeepEveryOtherWriteAndOneMovePerCommit() async throws {
        try await Self.withStore { store in
            let zone = try await store.write { tx in try tx.createZone(named: "Z", in: Self.database, createdAt: 1) }
            let start = try await Self.positions(store, zone: zone.rowID)
            let writers = 40
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<writers {
                    group.addTask {
                        do {
                            try await store.write { tx in
                                try tx.putRecord(
                                    Self.record("r\(index)", zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID)), references: [])
                                if index % 5 == 0 { throw PlannedFailure() }
                            }
                            return true
                        } catch is PlannedFailure {
                            return false
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == writers - writers / 5)
            let feed = try await store.read { tx in try tx.recordChanges(inZone: zone.rowID, after: 0, limit: 1_000, recordTypes: nil) }
            #expect(Set(feed.map(\.recordName)) == Set((0..<writers).filter { $0 % 5 != 0 }.map { "r\($0)" }))
            // Sequences strictly increase along the feed, and the zone stands at the last one handed out.
            #expect(feed.map(\.changeSequence) == feed.map(\.changeSequence).sorted())
            #expect(Set(feed.map(\.changeSequence)).count == feed.count)
            let end = try await Self.positions(store, zone: zone.rowID)
            #expect(end.records >= feed.last?.changeSequence ?? 0)
            #expect(end.zone == end.database)
            // One move per committed transaction: at least one, at most one per write.
            #expect(end.database > start.database)
            #expect(end.database <= start.database + Int64(writers))
        }
    }

    @Test func aZoneDeletedInTheTransactionThatChangedItKeepsItsDeletionAsItsLastMove() async throws {
        try await Self.withStore { store in
            let zone = try await store.write { tx in try tx.createZone(named: "Z", in: Self.database, createdAt: 1) }
            try await store.write { tx in
                try tx.putRecord(Self.record("a", zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID)), references: [])
                try tx.deleteZone(zone)
            }
            let after = try await Self.positions(store, zone: zone.rowID)
            // Created (1), deleted (2): the record's change added no move after the deletion.
            #expect(after.database == 2)
            #expect(after.zone == 2)
            #expect(try await store.read { tx in try tx.zone(rowID: zone.rowID)?.isDeleted } == true)
        }
    }

    /// A zone deletion rolled back with its savepoint leaves the zone live and changed by the
    /// transaction's earlier write: the zone still moves up the database's change log at commit, so a
    /// database-changes feed reports it.
    @Test func aZoneDeletionRolledBackWithItsSavepointKeepsTheEarlierChangesMove() async throws {
        try await Self.withStore { store in
            let zone = try await store.write { tx in try tx.createZone(named: "Z", in: Self.database, createdAt: 1) }
            let before = try await Self.positions(store, zone: zone.rowID)
            try await store.write { tx in
                try tx.putRecord(Self.record("a", zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID)), references: [])
                _ = try? tx.savepoint {
                    try tx.deleteZone(zone)
                    throw PlannedFailure()
                }
            }
            let after = try await Self.positions(store, zone: zone.rowID)
            #expect(try await store.read { tx in try tx.zone(rowID: zone.rowID)?.isDeleted } == false)
            #expect(after.records == 1)
            #expect(after.database == before.database + 1)
            #expect(after.zone == after.database)
        }
    }

    /// A save without references skips the `DELETE` of old edges only when the record is known to
    /// have none; a rolled-back savepoint that removed edges brings them back, and they are removed.
    @Test func editsOfReferencesKeepTheEdgesTableExactEvenAcrossARolledBackDeletion() async throws {
        try await Self.withStore { store in
            let zone = try await store.write { tx in try tx.createZone(named: "Z", in: Self.database, createdAt: 1) }
            @Sendable func source(_ fields: [String: FieldValue], _ tx: any RecordStoreWriter) throws -> StoredRecord {
                var record = Self.record("source", zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID))
                record.fields = fields
                return record
            }
            let edge = ReferenceEdge(
                sourceZoneRowID: zone.rowID, sourceRecordName: "source", fieldName: "parent", targetZoneRowID: zone.rowID,
                targetRecordName: "target", action: .none)
            let linked: [String: FieldValue] = ["parent": .reference(Reference(recordName: "target"))]
            try await store.write { tx in
                try tx.putRecord(Self.record("target", zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID)), references: [])
                #expect(try tx.record(named: "source", inZone: zone.rowID) == nil)
                try tx.putRecord(try source(linked, tx), references: [edge])
            }
            let edges = try await store.write { tx -> [Int] in
                var counts = [try tx.references(toRecord: "target", inZone: zone.rowID).count]
                _ = try tx.record(named: "source", inZone: zone.rowID)
                _ = try? tx.savepoint {
                    try tx.deleteRecord(
                        named: "source", inZone: zone.rowID, modified: .init(timestamp: 9, userRecordName: "_owner", deviceID: "d"),
                        sequence: try tx.nextChangeSequence(inZone: zone.rowID))
                    counts.append(try tx.references(toRecord: "target", inZone: zone.rowID).count)
                    throw PlannedFailure()
                }
                counts.append(try tx.references(toRecord: "target", inZone: zone.rowID).count)
                // Saved without its reference: the edge brought back by the rollback must go.
                try tx.putRecord(try source(["n": .int64(1)], tx), references: [])
                counts.append(try tx.references(toRecord: "target", inZone: zone.rowID).count)
                // Known to have none now; a save with a reference adds it, one without removes it again.
                try tx.putRecord(try source(linked, tx), references: [edge])
                counts.append(try tx.references(toRecord: "target", inZone: zone.rowID).count)
                try tx.putRecord(try source(["n": .int64(2)], tx), references: [])
                counts.append(try tx.references(toRecord: "target", inZone: zone.rowID).count)
                return counts
            }
            #expect(edges == [1, 0, 1, 0, 1, 0])
        }
    }
}
