import StratusPostgres
import StratusServer
@testable import StratusServerPostgres
import StratusTesting
import StratusWire
import Testing

/// A batch's record writes sent as one multi-row statement per table (`PostgresRecordWrites`) leave
/// exactly the rows that one statement per record left: records, tombstones, references, index rows.
@Suite(.enabled(if: PostgresScratch.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct PostgresMultiRowWriteTests {
    static let database = PostgresRecordStoreSequenceTests.database
    static let count = 200

    struct PlannedFailure: Error {}

    /// A record with a string, a number, a list, a location and references to `parent` (twice in a list) and `owner`.
    static func record(_ index: Int, zone: Int64, sequence: Int64, parent: String?, owner: String?) -> (StoredRecord, [ReferenceEdge]) {
        let name = "r\(index)"
        let stamp = StoredRecord.Stamp(timestamp: 1_000 + sequence, userRecordName: "_owner", deviceID: "d\(index % 3)")
        var fields: [String: FieldValue] = [
            "title": .string("note \(index) \"quoted\" \\ back"), "n": .int64(Int64(index * 7)),
            "tags": .stringList(["a\(index % 5)", "b"]), "at": .location(Location(latitude: 1.5, longitude: Double(index))),
        ]
        var edges: [ReferenceEdge] = []
        func refer(_ field: String, _ target: String, _ action: ReferenceAction) {
            edges.append(
                ReferenceEdge(
                    sourceZoneRowID: zone, sourceRecordName: name, fieldName: field, targetZoneRowID: zone, targetRecordName: target,
                    action: action
                )
            )
        }
        if let parent {
            fields["parent"] = .reference(Reference(recordName: parent, action: .deleteSelf))
            fields["links"] = .referenceList([Reference(recordName: parent), Reference(recordName: parent)])
            refer("parent", parent, .deleteSelf)
            refer("links", parent, .none)
            refer("links", parent, .validate)  // the same (target, field) twice: the last one is kept
        }
        if let owner {
            fields["owner"] = .reference(Reference(recordName: owner))
            refer("owner", owner, .none)
        }
        let record = StoredRecord(
            zoneRowID: zone, recordName: name, recordType: index % 2 == 0 ? "Note" : "Task", changeTag: ChangeTags.tag(for: sequence, at: stamp.timestamp),
            fields: fields, created: stamp, modified: stamp, changeSequence: sequence
        )
        return (record, edges)
    }

    /// Creates 200 records, then in a second transaction changes a third's references, strips a
    /// third of them, deletes the rest and writes one record twice; `oneByOne` makes every write go
    /// out before the next (a statement after each), as one statement per record did.
    static func scenario(_ store: PostgresRecordStore, zoneName: String, oneByOne: Bool) async throws -> Int64 {
        let zone = try await store.write { tx in
            let zone = try tx.createZone(named: zoneName, in: Self.database, createdAt: 1)
            try tx.prefetchRecords(named: (0..<Self.count).map { "r\($0)" }, inZone: zone.rowID)
            for index in 0..<Self.count {
                let (record, edges) = Self.record(
                    index, zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID), parent: index > 0 ? "r\(index - 1)" : nil,
                    owner: "r0"
                )
                try tx.putRecord(record, references: edges)
                if oneByOne { _ = try tx.zone(rowID: zone.rowID) }
            }
            return zone
        }
        try await store.write { tx in
            try tx.prefetchRecords(named: (0..<Self.count).map { "r\($0)" }, inZone: zone.rowID)
            for index in 0..<Self.count {
                let sequence = try tx.nextChangeSequence(inZone: zone.rowID)
                switch index % 3 {
                case 0:
                    let (record, edges) = Self.record(index, zone: zone.rowID, sequence: sequence, parent: "r\((index + 50) % Self.count)", owner: nil)
                    try tx.putRecord(record, references: edges)
                case 1:
                    let (record, _) = Self.record(index, zone: zone.rowID, sequence: sequence, parent: nil, owner: nil)
                    try tx.putRecord(record, references: [])
                default:
                    let stamp = StoredRecord.Stamp(timestamp: 5_000 + sequence, userRecordName: "_deleter", deviceID: "x")
                    try tx.deleteRecord(named: "r\(index)", inZone: zone.rowID, modified: stamp, sequence: sequence)
                }
                if oneByOne { _ = try tx.zone(rowID: zone.rowID) }
            }
            // r3 written a second time in the same batch: its last version wins.
            let (again, edges) = Self.record(3, zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID), parent: "r9", owner: "r1")
            try tx.putRecord(again, references: edges)
        }
        return zone.rowID
    }

    /// The zone's rows in every table the writes touch, as text, without the zone's row ID.
    static func rows(_ store: PostgresRecordStore, zone: Int64) throws -> [String: [[String?]]] {
        let db = try PostgresConnection(url: store.url, setup: ["SET search_path TO \(store.schema ?? "public")"])
        let columns = [
            "records":
                "record_name, record_type, change_tag, seq, deleted, fields, created_at, created_by, created_device, modified_at, modified_by, modified_device",
            "record_refs": "source_name, target_name, field_name, action",
            "field_index": "record_name, field_name, ordinal, record_type, vi, vr, vr2, vt",
        ]
        var result: [String: [[String?]]] = [:]
        for (table, list) in columns {
            result[table] = try db.query("SELECT \(list) FROM \(table) WHERE zone_id = $1 ORDER BY \(list)", [zone]).map { row in
                try (0..<list.split(separator: ",").count).map { try row[$0] as String? }
            }
        }
        return result
    }

    @Test func aBatchWrittenAsMultiRowStatementsLeavesTheRowsOfOneStatementPerRecord() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url(), connections: 2)
        let batched = try Self.rows(store, zone: try await Self.scenario(store, zoneName: "Batched", oneByOne: false))
        let single = try Self.rows(store, zone: try await Self.scenario(store, zoneName: "Single", oneByOne: true))
        #expect(batched == single)
        // The comparison covers every kind of row.
        #expect(batched["records"]?.count == Self.count)
        #expect(batched["records"]?.filter { $0[4] == "t" }.count == 66)
        #expect(batched["record_refs"]?.count == 2 * 67 + 1)  // r0, r3 … r198: parent + links; r3 again: and owner
        #expect(batched["record_refs"]?.contains { $0[0] == "r3" && $0[1] == "r9" && $0[2] == "links" && $0[3] == "VALIDATE" } == true)
        #expect((batched["field_index"]?.count ?? 0) > Self.count)
        try await store.close()
    }

    /// A record read as missing is written without removing references and index rows first (it has
    /// none); written again in the same transaction, its first version's are removed.
    @Test func aNewRecordWrittenTwiceInOneTransactionKeepsOnlyItsLastReferencesAndIndexRows() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url(), connections: 2)
        let zone = try await store.write { tx in
            let zone = try tx.createZone(named: "Twice", in: Self.database, createdAt: 1)
            try tx.prefetchRecords(named: ["r3"], inZone: zone.rowID)
            let (first, edges) = Self.record(3, zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID), parent: "r9", owner: "r1")
            try tx.putRecord(first, references: edges)
            var (second, _) = Self.record(3, zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID), parent: nil, owner: nil)
            second.fields = ["n": .int64(42)]
            try tx.putRecord(second, references: [])
            return zone
        }
        let rows = try Self.rows(store, zone: zone.rowID)
        #expect(rows["record_refs"] == [])
        #expect(rows["field_index"]?.map { $0[1] } == ["n"])
        #expect(rows["field_index"]?.first?[4] == "42")
        try await store.close()
    }

    @Test func aBatchThatFailsAfterItsWritesWentOutLeavesNothing() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url(), connections: 2)
        let zone = try await store.write { tx in try tx.createZone(named: "Failing", in: Self.database, createdAt: 1) }
        await #expect(throws: PlannedFailure.self) {
            try await store.write { tx in
                // More than one buffer's worth: the first thousand go out before the failure.
                for index in 0..<(PostgresStoreTransaction.maximumBufferedRecords + 20) {
                    let (record, edges) = Self.record(
                        index, zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID), parent: "r0", owner: nil
                    )
                    try tx.putRecord(record, references: edges)
                }
                throw PlannedFailure()
            }
        }
        let left = try Self.rows(store, zone: zone.rowID)
        #expect(left.values.allSatisfy { $0.isEmpty })
        #expect(try await store.read { tx in try tx.zone(rowID: zone.rowID)?.changeSequence } == 0)
        try await store.close()
    }

    @Test func writesBufferedBeforeARolledBackSavepointStayAndThoseInsideItGo() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url(), connections: 2)
        let zone = try await store.write { tx in
            let zone = try tx.createZone(named: "Savepoints", in: Self.database, createdAt: 1)
            for index in 0..<3 {
                let (record, edges) = Self.record(index, zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID), parent: "r9", owner: nil)
                try tx.putRecord(record, references: edges)
            }
            _ = try? tx.savepoint {
                // r1 again (what is buffered is rendered inside the savepoint), r5 new, then a read (it all goes out).
                for index in [1, 5] {
                    let (record, edges) = Self.record(index, zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID), parent: nil, owner: nil)
                    try tx.putRecord(record, references: edges)
                }
                _ = try tx.zone(rowID: zone.rowID)
                throw PlannedFailure()
            }
            _ = try? tx.savepoint {
                let (record, edges) = Self.record(1, zone: zone.rowID, sequence: try tx.nextChangeSequence(inZone: zone.rowID), parent: nil, owner: nil)
                try tx.putRecord(record, references: edges)
                throw PlannedFailure()  // nothing went out inside this one
            }
            return zone
        }
        let rows = try Self.rows(store, zone: zone.rowID)
        #expect(rows["records"]?.map { $0[0] } == ["r0", "r1", "r2"])
        #expect(rows["records"]?.map { $0[3] } == ["1", "2", "3"])
        #expect(rows["record_refs"]?.map { $0[0] } == ["r0", "r0", "r1", "r1", "r2", "r2"])
        #expect(try await store.read { tx in try tx.zone(rowID: zone.rowID)?.changeSequence } == 3)
        try await store.close()
    }
}
