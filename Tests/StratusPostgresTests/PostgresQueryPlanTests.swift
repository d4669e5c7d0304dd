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
}
