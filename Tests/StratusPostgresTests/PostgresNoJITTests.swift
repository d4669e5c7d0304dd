import Foundation
import StratusPostgres
import StratusServer
@testable import StratusServerPostgres
import StratusTesting
import StratusWire
import Testing

/// Issue 20 ("no stalls"): a query costed past `jit_above_cost` is never compiled with LLVM on
/// the store's connections (Documentation/0008, "No JIT").
@Suite(.enabled(if: PostgresScratch.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct PostgresNoJITTests {
    /// A filtered query sorted by a field over 60,000 matching records is planned well past
    /// PostgreSQL's JIT thresholds, yet runs without a JIT section in its plan.
    @Test func aFieldSortedQueryOverManyCandidatesIsNotCompiled() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url())
        let rank = QueryField.field(name: "rank", type: .int64)
        let plan = QueryPlan(
            zoneRowIDs: [1], recordType: "Note", filters: [QueryFilter(field: rank, comparator: .greaterThan, value: .int64(0))],
            sorts: [QuerySort(field: rank, ascending: false)], limit: 200
        )
        let (setting, explained) = try await store.pool.withConnection { db in
            try db.execute(
                """
                INSERT INTO records (zone_id, record_name, record_type, change_tag, seq, fields, created_at, created_by, created_device,
                    modified_at, modified_by, modified_device)
                SELECT 1, 'r' || g, 'Note', 't', g, '\\x7b7d', 0, 'u', 'd', 0, 'u', 'd' FROM generate_series(1, 60000) g;
                INSERT INTO field_index (zone_id, record_name, field_name, ordinal, record_type, vi)
                SELECT 1, 'r' || g, 'rank', 0, 'Note', g FROM generate_series(1, 60000) g;
                ANALYZE records; ANALYZE field_index;
                """
            )
            let keyset = try #require(PostgresQueryKeyset(plan: plan))
            var candidates = PostgresCandidateSQL(plan: plan)
            keyset.restrict(&candidates, singleZone: 1, after: nil, limit: 201)
            let lines = try db.query("EXPLAIN (ANALYZE, TIMING OFF) " + candidates.sql, candidates.parameters).map { try $0[0] as String }
            return (try db.queryFirst("SHOW jit").map { try $0[0] as String }, lines.joined(separator: "\n"))
        }
        try await store.close()
        #expect(setting == "off")
        // The plan's total cost, "cost=startup..total", is past jit_above_cost (100,000 by default).
        let total = explained.split(separator: "\n").first.flatMap { line in
            line.range(of: "..").flatMap { Double(line[$0.upperBound...].prefix { $0.isNumber || $0 == "." }) }
        }
        #expect((total ?? 0) > 100_000, "\(explained)")
        #expect(!explained.contains("JIT:"), "\(explained)")
    }
}
