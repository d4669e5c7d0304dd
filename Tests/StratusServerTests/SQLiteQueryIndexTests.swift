import Foundation
@testable import StratusServer
@testable import StratusServerSQLite
import StratusSQLite
import StratusServerSQL
import StratusTesting
import StratusWire
import Testing

/// The SQLite back end runs queries on its indexes: `EXPLAIN QUERY PLAN` never shows a full scan.
@Suite struct SQLiteQueryIndexTests {
    static let queries: [(name: String, filters: [String], sorts: [String])] = [
        ("no filter", [], []),
        (
            "equals, sorted by another field", [#"{"fieldName":"category","comparator":"EQUALS","fieldValue":{"value":"c3"}}"#],
            [#"{"fieldName":"score","ascending":false}"#]
        ),
        ("range on the sort field", [#"{"fieldName":"score","comparator":"GREATER_THAN","fieldValue":{"value":50}}"#], [#"{"fieldName":"score"}"#]),
        (
            "system sort", [#"{"fieldName":"score","comparator":"LESS_THAN","fieldValue":{"value":50}}"#],
            [#"{"systemFieldName":"createdTimestamp","ascending":false}"#]
        ),
        ("system filter", [#"{"systemFieldName":"createdUserRecordName","comparator":"EQUALS","fieldValue":{"value":"_x"}}"#], [#"{"fieldName":"title"}"#]),
        ("tokens", [#"{"fieldName":"title","comparator":"CONTAINS_ALL_TOKENS","fieldValue":{"value":"alpha item"}}"#], [#"{"fieldName":"score"}"#]),
        ("list", [#"{"fieldName":"tags","comparator":"LIST_CONTAINS_ANY","fieldValue":{"value":["t1","t2"],"type":"STRING_LIST"}}"#], []),
        ("prefix", [#"{"fieldName":"title","comparator":"BEGINS_WITH","fieldValue":{"value":"alp"}}"#], [#"{"fieldName":"title","ascending":false}"#]),
        (
            "near, by distance",
            [#"{"fieldName":"place","comparator":"NEAR","fieldValue":{"value":{"latitude":45,"longitude":1},"type":"LOCATION"},"distance":50000}"#],
            [#"{"fieldName":"place","relativeLocation":{"value":{"latitude":45,"longitude":1},"type":"LOCATION"}}"#]
        ),
        ("negation", [#"{"fieldName":"tags","comparator":"NOT_LIST_CONTAINS","fieldValue":{"value":"t1"}}"#], [#"{"systemFieldName":"recordName"}"#]),
    ]

    /// Every query shape, scanned in order or driven from a filter, searches indexes only.
    @Test func everyQueryShapeSearchesIndexesOnly() async throws {
        let server = try await TestCloudKitServer.start()
        do {
            try await check(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private func check(_ server: TestCloudKitServer) async throws {
        let words = ["alpha", "bravo", "charlie"]
        let records = (0..<300).map { (index: Int) -> Record in
            var fields: [String: FieldValue] = [:]
            fields["category"] = .string("c\(index % 10)")
            fields["score"] = .int64(Int64(index % 100))
            fields["title"] = .string("\(words[index % 3]) item \(index)")
            fields["tags"] = .stringList(["t\(index % 5)"])
            let latitude = 44 + Double(index % 20) / 10
            fields["place"] = .location(Location(latitude: latitude, longitude: Double(index % 30) / 10))
            return Record(recordName: "r\(index)", recordType: "Bench", fields: fields)
        }
        for batch in [records[..<150], records[150...]] {
            let body = String(decoding: try WireCoding.encode(RecordsModify.Request(operations: batch.map { .create($0) }, atomic: false)), as: UTF8.self)
            let (status, answer) = try await server.post("records/modify", body)
            #expect(status == 200, "\(String(decoding: answer, as: UTF8.self).prefix(500))")
        }

        // Index every field, as queries in development would one by one.
        try await server.store.write { tx in
            var schema = try tx.schema(container: TestCloudKitServer.container, environment: .development)
            let fields = schema.recordTypes["Bench"]?.fields ?? [:]
            schema.recordTypes["Bench"] = RecordTypeSchema(fields: fields.mapValues { $0.fullyIndexed })
            try tx.saveSchema(schema, container: TestCloudKitServer.container, environment: .development)
        }
        let database = DatabaseKey(
            container: TestCloudKitServer.container, environment: .development, scope: .private, owner: "_00000000000000000000000000000001")
        let (schema, zone) = try await server.store.read { tx in
            (try tx.schema(container: TestCloudKitServer.container, environment: .development), try tx.zone(named: "_defaultZone", in: database))
        }
        let zoneRowID = try #require(zone?.rowID)
        let db = try SQLiteConnection(path: server.directory.path("stratus.sqlite"), readOnly: true)
        defer { try? db.close() }
        for query in Self.queries {
            let request = try RecordsQuery.Request.json("Bench", filters: query.filters, sorts: query.sorts)
            var plan = try QueryPlanner(schema: schema, environment: .development).plan(request.query, limit: 200)
            plan.zoneRowIDs = [zoneRowID]
            try await server.store.prepare(for: plan)
            plan.after = QueryCursor(sortValues: plan.sorts.map { _ in .integer(1) }, zoneRowID: zoneRowID, recordName: "r1")
            let compiler = SQLiteQueryCompiler(plan: plan)
            let filters = plan.filters.map { SQLiteQueryFilter($0, plan: plan) }
            let strategies = [SQLiteQueryCompiler.Strategy.scan] + filters.flatMap(\.drivers).map { .drive($0) }
            for strategy in strategies {
                let statement = compiler.select(filters, strategy)
                let details = try db.fetchAll("EXPLAIN QUERY PLAN " + statement.sql, SQLiteArguments(statement.arguments)) { row in try row[3] as String }
                // `q` and `d` are the statement's own subqueries; a zone-wide primary-key range reads every row of the zone.
                let fullScans = details.filter {
                    ($0.hasPrefix("SCAN ") && $0 != "SCAN q" && $0 != "SCAN d") || $0.hasSuffix("USING PRIMARY KEY (zone_id=?)")
                }
                #expect(fullScans.isEmpty, "\(query.name): \(details)")
                #expect(details.contains { $0.contains("USING") && ($0.contains("INDEX") || $0.contains("PRIMARY KEY")) }, "\(query.name): \(details)")
                if case .scan = strategy, query.sorts.count == 1, !query.sorts[0].contains("relativeLocation") {
                    // Only the outer query sorts (its page); the inner one reads in index order.
                    #expect(details.filter { $0.contains("TEMP B-TREE") }.count == 1, "\(query.name): \(details)")
                }
            }
            // The compiled query also returns what the scan finds.
            let strategy = try compiler.choose(filters, db)
            let chosen = try compiler.run(db).records.map(\.recordName)
            var scanned: [String] = []
            try db.forEachRow(compiler.select(filters, .scan).sql, SQLiteArguments(compiler.select(filters, .scan).arguments)) { row in
                scanned.append(try row[1] as String)
            }
            #expect(chosen == Array(scanned.prefix(200)), "\(query.name) with \(strategy)")
        }
    }

    /// Prefix ranges cover exactly the strings that begin with the prefix.
    @Test func prefixUpperBoundIsTheSmallestLargerString() {
        #expect(SQLTextOrder.prefixUpperBound("ab") == "ac")
        #expect(SQLTextOrder.prefixUpperBound("a\u{10FFFF}") == "b")
        #expect(SQLTextOrder.prefixUpperBound("\u{D7FF}") == "\u{E000}")
        #expect(SQLTextOrder.prefixUpperBound("") == nil)
        #expect(SQLTextOrder.prefixUpperBound("\u{10FFFF}") == nil)
    }
}

extension FieldSchema {
    /// This field with every index its type allows.
    var fullyIndexed: FieldSchema {
        FieldSchema(type: type, queryable: true, sortable: !type.isList, searchable: type == .string || type == .stringList)
    }
}
