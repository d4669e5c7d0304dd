import Synchronization

/// How many candidate rows `records/query` read from PostgreSQL through one store, so tests
/// can check that a page's work is bounded (`QueryPlan.candidateLimit`, `PostgresQueryKeyset`).
///
/// ```swift
/// let before = store.queryStatistics.rowsRead
/// _ = try await store.read { try $0.query(plan) }
/// #expect(store.queryStatistics.rowsRead - before <= plan.limit + 1)
/// ```
final class PostgresQueryStatistics: Sendable {
    private let rows = Atomic<Int>(0)

    /// Rows read so far.
    var rowsRead: Int { rows.load(ordering: .relaxed) }

    /// Adds the rows of one candidate statement.
    func count(rows count: Int) {
        rows.add(count, ordering: .relaxed)
    }
}
