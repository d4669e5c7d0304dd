import Foundation
@testable import StratusServer
@testable import StratusServerSQLite
import StratusServerSQL
import StratusSQL
import StratusTesting
import StratusWire
import Testing

/// The hot-path shortcuts the records benchmark led to: the store's field-blob codec, the
/// record-size bound and the schema memo must behave exactly like the slow paths they skip.
@Suite struct RecordsFastPathTests {
    static let samples: [String: FieldValue] = [
        "plain": .string("Ship it"),
        "escaped": .string("quote \" backslash \\ slash / newline \n tab \t bell \u{07} ünïcødé 🚀"),
        "empty": .string(""),
        "zero": .int64(0),
        "minimum": .int64(.min),
        "maximum": .int64(.max),
        "whole": .double(2.0),
        "tiny": .double(1e-7),
        "huge": .double(-1.7976931348623157e308),
        "due": .timestamp(Timestamp(millisecondsSince1970: 1_747_999_812_000)),
        "before1970": .timestamp(Timestamp(millisecondsSince1970: -1)),
        "blob": .bytes(Data([0, 1, 2, 254, 255])),
        "parent": .reference(Reference(recordName: "p1", action: .deleteSelf)),
        "place": .location(Location(latitude: 52.5, longitude: 13.4, altitude: 34, timestamp: Timestamp(millisecondsSince1970: 5))),
        "file": .asset(Asset(fileChecksum: "abc", size: 12, downloadURL: "https://example.invalid/${f}")),
        "tags": .stringList(["a", "b\"c", ""]),
        "counts": .int64List([1, -2, .max]),
        "ratios": .doubleList([0.5, 3.0, -0.0]),
        "dates": .timestampList([Timestamp(millisecondsSince1970: 0), Timestamp(millisecondsSince1970: 99)]),
        "blobs": .bytesList([Data("x".utf8)]),
        "links": .referenceList([Reference(recordName: "r2")]),
        "places": .locationList([Location(latitude: 0, longitude: 0)]),
        "files": .assetList([Asset(fileChecksum: "f")]),
        "nothing": .emptyList,
        "noLists": .stringList([]),
    ]

    /// Compared with the Codable reference path (`encodeJSON` then `serialized`), since
    /// `WireCoding.encode` itself now uses the direct writer the blob uses.
    @Test func fieldBlobIsByteForByteTheWireEncoding() throws {
        #expect(try SQLStoredRows.encodeFields(Self.samples) == WireCoding.encodeJSON(Self.samples).serialized())
        for (name, value) in Self.samples {
            #expect(try SQLStoredRows.encodeFields([name: value]) == WireCoding.encodeJSON([name: value]).serialized(), "\(name)")
        }
        #expect(try SQLStoredRows.encodeFields([:]) == WireCoding.encodeJSON([String: FieldValue]()).serialized())
    }

    @Test func fieldBlobDecodesLikeWireCoding() throws {
        let blob = try WireCoding.encode(Self.samples)
        let fast = try SQLStoredRows.decodeFields(blob, dialect: .sqlite)
        #expect(fast == (try WireCoding.decode([String: FieldValue].self, from: blob)))
        #expect(fast == Self.samples)
        #expect(throws: (any Error).self) { try SQLStoredRows.decodeFields(Data("[1]".utf8), dialect: .sqlite) }
    }

    @Test func sizeBoundIsNeverBelowTheEncodedSize() throws {
        for (name, value) in Self.samples {
            let bound = RecordModifier.sizeBound([name: value])
            switch value {
            case .asset, .assetList: #expect(bound == 0, "\(name)")
            default: #expect(bound >= name.utf8.count + (try WireCoding.encode(value).count), "\(name)")
            }
        }
        let awkward = String(repeating: "\u{01}\"", count: 50)
        let reference = Reference(recordName: awkward, zoneID: ZoneID(zoneName: awkward, ownerRecordName: awkward, zoneType: awkward), action: .deleteSelf)
        let worst: [String: FieldValue] = [
            "s": .string(String(repeating: "\u{01}", count: 1000)), "l": .stringList(["\u{01}\u{02}", "\""]), "r": .reference(reference),
            "rl": .referenceList([reference, Reference(recordName: ""), Reference(recordName: "x", action: .validate)]),
        ]
        for (name, value) in worst {
            #expect(RecordModifier.sizeBound([name: value]) >= name.utf8.count + (try WireCoding.encode(value).count), "\(name)")
        }
        // A reference no longer makes the bound unbounded (which encoded every field of every note to count it).
        #expect(RecordModifier.sizeBound(["folder": .reference(Reference(recordName: "F", zoneID: ZoneID(zoneName: "Z")))]) < 200)
        #expect(RecordModifier.sizeBound(worst) >= worst.reduce(0) { $0 + $1.key.utf8.count + ((try? WireCoding.encode($1.value).count) ?? 0) })
    }

    @Test func recordSizeLimitStillHoldsAtTheBoundary() async throws {
        let server = try await TestCloudKitServer.start { $0.limits.maximumRecordSize = 120 }
        // "note" (4) + {"type":"STRING","value":"…"} (28 + n): n = 88 is exactly 120 bytes.
        func save(_ name: String, _ length: Int) async throws -> RecordResult? {
            let record = Record(recordName: name, recordType: "Note", fields: ["note": .string(String(repeating: "x", count: length))])
            return try await server.send(
                "records/modify", RecordsModify.Request(operations: [.create(record)]), as: RecordsModify.Response.self
            ).records.first
        }
        guard case .record = try await save("fits", 88) else { Issue.record("a 120-byte record was refused"); return }
        guard case .error(let error) = try await save("over", 89) else { Issue.record("a 121-byte record was accepted"); return }
        #expect(error.serverErrorCode == .badRequest)
        #expect(error.reason?.contains("121 bytes") == true)
        await server.stop()
    }

    @Test func schemaMemoNeverServesAStaleSchema() async throws {
        let directory = try TemporaryDirectory(prefix: "fast-path")
        defer { directory.remove() }
        let store = try await SQLiteRecordStore.open(path: directory.path("store.sqlite"))
        let first = Schema(recordTypes: ["A": RecordTypeSchema(fields: ["n": FieldSchema(type: .int64)])])
        let second = Schema(recordTypes: ["B": RecordTypeSchema(fields: ["s": FieldSchema(type: .string)])])
        try await store.write { try $0.saveSchema(first, container: "c", environment: .development) }
        #expect(try await store.write { try $0.schema(container: "c", environment: .development) } == first)
        #expect(try await store.read { try $0.schema(container: "c", environment: .development) } == first)
        // A rolled-back change is never seen, a committed one always is, and environments stay apart.
        struct Rollback: Error {}
        await #expect(throws: Rollback.self) {
            try await store.write { tx in
                try tx.saveSchema(second, container: "c", environment: .development)
                #expect(try tx.schema(container: "c", environment: .development) == second)
                throw Rollback()
            }
        }
        #expect(try await store.write { try $0.schema(container: "c", environment: .development) } == first)
        try await store.write { try $0.saveSchema(second, container: "c", environment: .development) }
        #expect(try await store.read { try $0.schema(container: "c", environment: .development) } == second)
        #expect(try await store.read { try $0.schema(container: "c", environment: .production) } == Schema())
        try await store.close()
    }

    @Test func schemaGrowthAndClashesThroughTheService() async throws {
        let server = try await TestCloudKitServer.start()
        func save(_ name: String, _ fields: [String: FieldValue]) async throws -> String {
            let record = Record(recordName: name, recordType: "Item", fields: fields)
            let body = try WireCoding.encode(RecordsModify.Request(operations: [.create(record)]))
            let (status, data) = try await server.post("records/modify", String(decoding: body, as: UTF8.self))
            return "\(status) \(String(decoding: data, as: UTF8.self))"
        }
        #expect(try await save("a", ["n": .int64(1)]).hasPrefix("200"))
        #expect(try await save("b", ["n": .string("x")]).contains("BAD_REQUEST"))
        // The schema grows by a field; the next write must see the grown schema.
        #expect(try await save("c", ["m": .string("y")]).hasPrefix("200"))
        #expect(try await save("d", ["m": .int64(2)]).contains("BAD_REQUEST"))
        #expect(try await save("e", ["m": .string("z"), "n": .int64(3)]).hasPrefix("200"))
        await server.stop()
    }
}
