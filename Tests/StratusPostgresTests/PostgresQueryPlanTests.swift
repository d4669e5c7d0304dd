import StratusPostgres
import StratusServer
@testable import StratusServerPostgres
import StratusTesting
import StratusWire
import Testing

/// The candidate query PostgreSQL runs for `records/query` is answered from the field index.
@Suite(.enabled(if: PostgresScratch.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct PostgresQueryPlanTests {
    @Test func selectiveFiltersAreAnsweredFromTheFieldIndex() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url())
        let equality = QueryPlan(
            zoneRowIDs: [1], recordType: "Note",
            filters: [QueryFilter(field: .field(name: "title", type: .string), comparator: .equals, value: .string("t77"))], limit: 10
        )
        let range = QueryPlan(
            zoneRowIDs: [1], recordType: "Note",
            filters: [QueryFilter(field: .field(name: "rank", type: .int64), comparator: .lessThan, value: .int64(5))], limit: 10
        )
        let plans = try await store.pool.withConnection { db in
            try db.execute(
                """
                INSERT INTO records (zone_id, record_name, record_type, change_tag, seq, fields, created_at, created_by, created_device,
                    modified_at, modified_by, modified_device)
                SELECT 1, 'r' || g, 'Note', 't', g, '\\x7b7d', 0, 'u', 'd', 0, 'u', 'd' FROM generate_series(1, 20000) g;
                INSERT INTO field_index (zone_id, record_name, field_name, ordinal, record_type, vt)
                SELECT 1, 'r' || g, 'title', 0, 'Note', 't' || g FROM generate_series(1, 20000) g;
                INSERT INTO field_index (zone_id, record_name, field_name, ordinal, record_type, vi)
                SELECT 1, 'r' || g, 'rank', 0, 'Note', g FROM generate_series(1, 20000) g;
                ANALYZE records; ANALYZE field_index;
                """
            )
            var plans = try [equality, range].map { plan in
                let candidates = PostgresCandidateSQL(plan: plan)
                return try db.query("EXPLAIN " + candidates.sql, candidates.parameters).map { try $0[0] as String }.joined(separator: "\n")
            }
            // A page of the type in the store's order reads the bytewise index in order, after the cursor, with a LIMIT.
            let page = QueryPlan(
                zoneRowIDs: [1], recordType: "Note", filters: [], limit: 10,
                after: QueryCursor(sortValues: [], zoneRowID: 1, recordName: "r5000")
            )
            let keyset = try #require(PostgresQueryKeyset(plan: page))
            var candidates = PostgresCandidateSQL(plan: page)
            keyset.restrict(&candidates, singleZone: 1, after: page.after, limit: 11)
            plans.append(try db.query("EXPLAIN " + candidates.sql, candidates.parameters).map { try $0[0] as String }.joined(separator: "\n"))
            return plans
        }
        #expect(plans[0].contains("field_index_vt"), "\(plans[0])")
        #expect(plans[1].contains("field_index_vi"), "\(plans[1])")
        #expect(!plans[0].contains("Seq Scan on records"), "\(plans[0])")
        #expect(plans[2].contains("records_by_type_bytewise") && plans[2].contains("Limit") && !plans[2].contains("Sort"), "\(plans[2])")
        try await store.close()
    }

    /// A read policy reads `records_by_creator` in order; several sorts and a distance sort are a
    /// top-N sort in PostgreSQL with a LIMIT, so a page never returns every candidate.
    @Test func policiesAndSeveralSortsAreAnsweredInSQL() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url())
        let rank = QueryField.field(name: "rank", type: .int64)
        let spot = QueryField.field(name: "spot", type: .location)
        let paris = Location(latitude: 48.8566, longitude: 2.3522)
        let plans: [(name: String, plan: QueryPlan)] = [
            ("policy", QueryPlan(zoneRowIDs: [1], recordType: "Note", limit: 10, createdBy: "u7")),
            (
                "two sorts",
                QueryPlan(
                    zoneRowIDs: [1], recordType: "Note", sorts: [QuerySort(field: .system(.createdUserRecordName)), QuerySort(field: rank, ascending: false)],
                    limit: 10)
            ),
            ("distance", QueryPlan(zoneRowIDs: [1], recordType: "Note", sorts: [QuerySort(field: spot, relativeLocation: paris)], limit: 10)),
        ]
        let explained = try await store.pool.withConnection { db -> [String] in
            try db.execute(
                """
                INSERT INTO records (zone_id, record_name, record_type, change_tag, seq, fields, created_at, created_by, created_device,
                    modified_at, modified_by, modified_device)
                SELECT 1, 'r' || g, 'Note', 't', g, '\\x7b7d', 0, 'u' || (g % 50), 'd', 0, 'u', 'd' FROM generate_series(1, 20000) g;
                INSERT INTO field_index (zone_id, record_name, field_name, ordinal, record_type, vi)
                SELECT 1, 'r' || g, 'rank', 0, 'Note', g FROM generate_series(1, 20000) g;
                INSERT INTO field_index (zone_id, record_name, field_name, ordinal, record_type, vr, vr2)
                SELECT 1, 'r' || g, 'spot', 0, 'Note', 40 + (g % 100) * 0.1, (g / 100) * 0.1 FROM generate_series(1, 20000) g;
                ANALYZE records; ANALYZE field_index;
                """
            )
            return try plans.map { _, plan in
                let keyset = try #require(PostgresQueryKeyset(plan: plan))
                var candidates = PostgresCandidateSQL(plan: plan)
                keyset.restrict(&candidates, singleZone: 1, after: nil, limit: 11)
                let rows = try db.query(candidates.sql, candidates.parameters)
                #expect(rows.count == 11)
                return try db.query("EXPLAIN (ANALYZE, COSTS OFF) " + candidates.sql, candidates.parameters).map { try $0[0] as String }.joined(separator: "\n")
            }
        }
        #expect(explained[0].contains("records_by_creator") && !explained[0].contains("Sort"), "\(explained[0])")
        for (index, plan) in explained.enumerated().dropFirst() {
            #expect(plan.contains("Limit") && plan.contains("top-N heapsort"), "\(plans[index].name): \(plan)")
        }
        try await store.close()
    }

    /// The migration that adds the longitude column fills it for the locations already indexed.
    @Test func theLongitudeMigrationIndexesExistingLocationsAgain() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url())
        let zone = try await store.write { tx in
            try tx.createZone(named: "Places", in: DatabaseKey(container: "c", environment: .development, scope: .private, owner: "_u"), createdAt: 0)
        }
        let stamp = StoredRecord.Stamp(timestamp: 0, userRecordName: "_u", deviceID: "d")
        try await store.write { tx in
            let record = StoredRecord(
                zoneRowID: zone.rowID, recordName: "eiffel", recordType: "Place", changeTag: "1",
                fields: ["spot": .location(Location(latitude: 48.8584, longitude: 2.2945)), "weight": .double(3.5)],
                created: stamp, modified: stamp, changeSequence: try tx.nextChangeSequence(inZone: zone.rowID)
            )
            try tx.putRecord(record, references: [])
        }
        _ = try await store.pool.withConnection { db in
            try db.execute("ALTER TABLE field_index DROP COLUMN vr2; DELETE FROM stratus_migrations WHERE identifier = 'pg-v9-field-index-longitude'")
        }
        try await PostgresRecordStoreSchema.migrator.migrate(store.pool)
        let rows = try await store.pool.withConnection { db -> [[String?]] in
            try db.query("SELECT field_name, vr::text, vr2::text FROM field_index ORDER BY field_name").map(\.values)
        }
        #expect(rows == [["spot", "48.8584", "2.2945"], ["weight", "3.5", nil]])
        try await store.close()
    }
}
