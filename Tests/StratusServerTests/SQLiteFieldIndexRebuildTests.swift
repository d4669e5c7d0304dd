import Foundation
@testable import StratusServer
@testable import StratusServerSQLite
import StratusSQLite
import StratusTesting
import StratusWire
import Testing

/// Turning a development field's index on builds its rows from each record's field alone
/// (`json_extract`), and those rows are exactly what decoding every whole record gives.
@Suite struct SQLiteFieldIndexRebuildTests {
    /// Values of every indexable kind, missing fields, and names a JSON path cannot spell plainly.
    static func fields(_ index: Int) -> [String: FieldValue] {
        var fields: [String: FieldValue] = [:]
        guard index % 7 != 0 else { return fields }  // records lacking every field get NULL rows
        fields["title"] = .string("Alpha item \(index), \"quoted\" ü")
        fields["score"] = .int64(Int64(index % 100) - 50)
        fields["ratio"] = .double(Double(index) / 3)
        fields["due"] = .timestamp(Timestamp(millisecondsSince1970: 1_700_000_000_000 + Int64(index)))
        fields["blob"] = .bytes(Data([UInt8(index % 256), 0, 255]))
        fields["owner"] = .reference(Reference(recordName: "owner-\(index % 5)"))
        fields["place"] = .location(Location(latitude: 44 + Double(index % 20) / 10, longitude: Double(index % 30) / 10))
        fields["tags"] = .stringList(["t\(index % 5)", "Shared Tag"])
        fields["counts"] = .int64List([Int64(index), -1])
        fields["naïve_field"] = .string("not plain \(index)")
        if index % 3 == 0 { fields["score"] = nil }
        return fields
    }

    @Test func aFieldIndexBuiltFromItsOwnJSONEqualsOneBuiltFromWholeRecords() async throws {
        try await TestCloudKitServer.withStarted(backend: .sqlite) { try await check($0) }
    }

    private func check(_ server: TestCloudKitServer) async throws {
        let records = (0..<400).map { Record(recordName: "r\($0)", recordType: "Item", fields: Self.fields($0)) }
        for batch in [records[..<200], records[200...]] {
            let request = RecordsModify.Request(operations: batch.map { .create($0) }, atomic: false)
            let (status, answer) = try await server.post("records/modify", String(decoding: try WireCoding.encode(request), as: UTF8.self))
            let response = try WireCoding.decode(RecordsModify.Response.self, from: answer)
            #expect(status == 200 && response.records.allSatisfy { $0.asError == nil }, "\(String(decoding: answer, as: UTF8.self).prefix(500))")
        }
        // Turn every index on, as development queries would: the reindex path under test.
        try await server.store.write { tx in
            var schema = try tx.schema(container: TestCloudKitServer.container, environment: .development)
            let fields = try #require(schema.recordTypes["Item"]?.fields)
            schema.recordTypes["Item"] = RecordTypeSchema(fields: fields.mapValues { $0.fullyIndexed })
            try tx.saveSchema(schema, container: TestCloudKitServer.container, environment: .development)
        }
        try await #require(server.store as? SQLiteRecordStore).indexBuilder.waitUntilBuilt("Item")
        let db = try SQLiteConnection(path: server.directory.path("stratus.sqlite"))
        defer { try? db.close() }
        let built = try Self.indexRows(db)
        #expect(built.values.count > 1_000 && built.tokens.count > 1_000)
        #expect(built.values.contains { $0.contains("naïve_field") } && built.values.contains { $0.contains("|NULL|") })
        try db.transaction(.immediate) { try SQLiteFieldIndex.rebuildAll($0) }
        let decoded = try Self.indexRows(db)
        // NB: the differences, not the lists, so a failure names the rows that differ.
        #expect(built.values.count == decoded.values.count && built.tokens.count == decoded.tokens.count)
        #expect(Set(built.values).symmetricDifference(decoded.values).sorted().prefix(20) == [])
        #expect(Set(built.tokens).symmetricDifference(decoded.tokens).sorted().prefix(20) == [])
    }

    @Test func onlyPlainNamesGetAJSONPath() {
        #expect(SQLiteFieldIndex.jsonPath(ofField: "due_2-b") == #"$."due_2-b""#)
        for name in ["", "a b", "a\"b", "naïve", "a.b", "a[0]", "$"] {
            #expect(SQLiteFieldIndex.jsonPath(ofField: name) == nil, "\(name)")
        }
    }

    /// Every value and token row, as sorted text lines.
    static func indexRows(_ db: SQLiteConnection) throws -> (values: [String], tokens: [String]) {
        let values = try db.fetchAll(
            "SELECT zone_id || '|' || record_name || '|' || field_name || '|' || ordinal || '|' || record_type || '|' || coalesce(quote(v), 'NULL') || '|' || coalesce(quote(v2), 'NULL') FROM field_index"
        ) { row in try row[0] as String }
        let tokens = try db.fetchAll(
            "SELECT zone_id || '|' || record_name || '|' || field_name || '|' || token || '|' || record_type FROM field_tokens"
        ) { row in try row[0] as String }
        return (values.sorted(), tokens.sorted())
    }
}
