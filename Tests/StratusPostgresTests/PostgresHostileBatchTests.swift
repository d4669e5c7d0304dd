import Foundation
import StratusPostgres
import StratusServer
@testable import StratusServerPostgres
import StratusTesting
import StratusWire
import Testing

/// A batch's multi-row statements carry what clients sent — record names, types, strings, lists,
/// bytes, reference targets — as array members (`PostgresArray`, binary): every value must be
/// stored, indexed, replaced and removed exactly, whatever characters it holds.
@Suite(.enabled(if: PostgresScratch.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct PostgresHostileBatchTests {
    static let database = PostgresRecordStoreSequenceTests.database

    /// Non-empty strings that an array literal would quote, escape or misread (short enough for a B-tree entry).
    static let values: [String] = PostgresArrayTests.hostile.compactMap { $0 }.filter { !$0.isEmpty && $0.utf8.count < 200 }

    static func record(_ index: Int, zone: Int64, sequence: Int64, revision: Int) -> (StoredRecord, [ReferenceEdge]) {
        let name = values[index]
        let other = values[(index + 1) % values.count]
        let stamp = StoredRecord.Stamp(timestamp: 1_000 + sequence, userRecordName: other, deviceID: name)
        var fields: [String: FieldValue] = [
            "s": .string(revision == 0 ? name : other), "list": .stringList([name, "", other, name]), "empty": .stringList([]),
            "bytes": .bytes(Data([0, 0x22, 0x2C, 0x5C, 0x7B, 0x7D, 0xFF] + Array(name.utf8))), "n": .int64(Int64.min + Int64(index)),
            "d": .double(-0.0), "target": .reference(Reference(recordName: other)), other: .string(name),
        ]
        if index == 0 { fields["big"] = .bytes(Data(repeating: 0x5C, count: 300_000)) }  // not indexed: any size
        let edge = ReferenceEdge(
            sourceZoneRowID: zone, sourceRecordName: name, fieldName: "target", targetZoneRowID: zone, targetRecordName: other, action: .none
        )
        let record = StoredRecord(
            zoneRowID: zone, recordName: name, recordType: other, changeTag: ChangeTags.tag(for: sequence, at: stamp.timestamp), fields: fields,
            created: stamp, modified: stamp, changeSequence: sequence
        )
        return (record, [edge])
    }

    /// Writes every value's record in one batch (creates when `revision` is 0, replacements after).
    static func write(_ store: PostgresRecordStore, zone: Int64, revision: Int) async throws -> [StoredRecord] {
        try await store.write { tx in
            try tx.prefetchRecords(named: values, inZone: zone)
            return try values.indices.map { index in
                let (record, edges) = Self.record(index, zone: zone, sequence: try tx.nextChangeSequence(inZone: zone), revision: revision)
                try tx.putRecord(record, references: edges)
                return record
            }
        }
    }

    /// The record without its empty list (which may read back as an empty list of no type).
    static func withoutEmptyList(_ record: StoredRecord) -> StoredRecord {
        var record = record
        record.fields["empty"] = nil
        return record
    }

    @Test func hostileValuesAreStoredIndexedReplacedAndRemovedExactly() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url(), connections: 2)
        let zone = try await store.write { tx in try tx.createZone(named: "Hostile", in: Self.database, createdAt: 1).rowID }
        for revision in 0..<2 {
            let written = try await Self.write(store, zone: zone, revision: revision)
            let read = try await store.read { tx in try Self.values.map { try tx.record(named: $0, inZone: zone) } }
            #expect(read.map { $0.map(Self.withoutEmptyList) } == written.map(Self.withoutEmptyList))
            let rows = try PostgresMultiRowWriteTests.rows(store, zone: zone)
            // Per record: s, n, d, target, the field named after a value, and four list members (the empty list has none).
            #expect(rows["field_index"]?.count == Self.values.count * 9)
            for (index, name) in Self.values.enumerated() {
                let other = Self.values[(index + 1) % Self.values.count]
                let own = rows["field_index"]?.filter { $0[0] == name } ?? []
                #expect(own.filter { $0[1] == "s" }.map { $0[7] } == [revision == 0 ? name : other])
                #expect(own.filter { $0[1] == "list" }.map { $0[7] } == [name, "", other, name])
                #expect(own.filter { $0[1] == other }.map { $0[7] } == [name])
                #expect(own.allSatisfy { $0[3] == other })
                #expect(rows["record_refs"]?.filter { $0[0] == name }.map { $0[1] } == [other])
            }
        }
        // Deleted in one batch: tombstones, and their references and index rows removed by name.
        try await store.write { tx in
            try tx.prefetchRecords(named: Self.values, inZone: zone)
            for name in Self.values {
                let stamp = StoredRecord.Stamp(timestamp: 9_000, userRecordName: name, deviceID: name)
                try tx.deleteRecord(named: name, inZone: zone, modified: stamp, sequence: try tx.nextChangeSequence(inZone: zone))
            }
        }
        let rows = try PostgresMultiRowWriteTests.rows(store, zone: zone)
        #expect(rows["records"]?.count == Self.values.count)
        #expect(rows["records"]?.allSatisfy { $0[4] == "t" && $0[5] == nil && $0[10] == $0[0] } == true)
        #expect(rows["field_index"] == [])
        #expect(rows["record_refs"] == [])
        try await store.close()
    }
}
