import Foundation
@testable import StratusServer
@testable import StratusServerSQLite
import StratusSQLite
import StratusTesting
import StratusWire
import Testing

/// With a read policy (`QueryPlan.createdBy`), nothing SQLite counts to choose a strategy depends
/// on records the reader cannot see, and the policy itself reads an index.
@Suite struct SQLiteQueryPolicyTests {
    @Test func everyDriverCountIsNarrowedToTheReadersRecords() async throws {
        try await withServer(.sqlite) { server in try await check(server) }
    }

    private func check(_ server: TestCloudKitServer) async throws {
        // The reader (the open-mode user) has 100 notes, more than the count that ends the search for a driver.
        let notes = (0..<100).map { Record(recordName: "mine-\($0)", recordType: "Note", fields: ["title": .string("note \($0)"), "rank": .int64(Int64($0))]) }
        let body = String(decoding: try WireCoding.encode(RecordsModify.Request(operations: notes.map { .create($0) }, atomic: false)), as: UTF8.self)
        #expect(try await server.post("records/modify", body).status == 200)
        let probe =
            #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"title","comparator":"EQUALS","fieldValue":{"value":"note 1"}}],"sortBy":[{"fieldName":"rank"}]}}"#
        #expect(try await server.post("records/query", probe).status == 200)  // turns the indexes on
        let database = DatabaseKey(
            container: TestCloudKitServer.container, environment: .development, scope: .private, owner: "_00000000000000000000000000000001")
        let (schema, zone) = try await server.store.read { tx in
            (try tx.schema(container: TestCloudKitServer.container, environment: .development), try tx.zone(named: "_defaultZone", in: database))
        }
        let zoneRowID = try #require(zone?.rowID)
        // Another creator's record, stored as the service would store it.
        let stamp = StoredRecord.Stamp(timestamp: 1, userRecordName: "_someone_else", deviceID: "d")
        let hidden = StoredRecord(
            zoneRowID: zoneRowID, recordName: "theirs", recordType: "Note", changeTag: "x", fields: ["title": .string("swordfish"), "rank": .int64(5)],
            created: stamp, modified: stamp, changeSequence: 0
        )
        try await server.store.write { tx in
            var record = hidden
            record.changeSequence = try tx.nextChangeSequence(inZone: zoneRowID)
            try tx.putRecord(record, references: [])
        }

        let db = try SQLiteConnection(path: server.directory.path("stratus.sqlite"), readOnly: true)
        defer { try? db.close() }
        func strategy(title: String, reader: String?) async throws -> (strategy: String, names: [String]) {
            let request = try RecordsQuery.Request.json(
                "Note", filters: [#"{"fieldName":"title","comparator":"EQUALS","fieldValue":{"value":"\#(title)"}}"#], sorts: [#"{"fieldName":"rank"}"#]
            )
            var plan = try QueryPlanner(schema: schema, environment: .development).plan(request.query, limit: 10)
            plan.zoneRowIDs = [zoneRowID]
            plan.createdBy = reader
            try await server.store.prepare(for: plan)
            let compiler = SQLiteQueryCompiler(plan: plan)
            let filters = plan.allFilters.map { SQLiteQueryFilter($0, plan: plan) }
            let chosen = try compiler.choose(filters, db)
            let kind: String
            switch chosen {
            case .empty: kind = "empty"
            case .scan: kind = "scan"
            case .drive: kind = "drive"
            }
            for driver in compiler.drivers(filters) {
                let details = try db.fetchAll("EXPLAIN QUERY PLAN " + driver.select.sql, SQLiteArguments(driver.select.arguments)) { row in try row[3] as String
                }
                // `x` is the narrowing's own subquery.
                #expect(!details.contains { $0.hasPrefix("SCAN ") && $0 != "SCAN x" }, "\(details)")
            }
            return (kind, try compiler.run(db).records.map(\.recordName))
        }
        let reader = "_00000000000000000000000000000001"
        // Without a policy the hidden record counts (and is found); with one it counts as nothing.
        #expect(try await strategy(title: "swordfish", reader: nil) == ("drive", ["theirs"]))
        #expect(try await strategy(title: "swordfish", reader: reader) == ("empty", []))
        #expect(try await strategy(title: "no such title", reader: reader) == ("empty", []))
        #expect(try await strategy(title: "note 7", reader: reader) == ("drive", ["mine-7"]))
        #expect(try await strategy(title: "note 7", reader: "_someone_else") == ("drive", []))
    }
}
