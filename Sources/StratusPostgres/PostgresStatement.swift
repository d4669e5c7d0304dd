/// One statement of a ``PostgresConnection/pipeline(_:)`` batch.
///
/// A `prepared` statement is parsed and planned once per connection (a named prepared statement,
/// its `Parse` sent in the pipeline of its first use) and then only executed: for the short
/// statements a write sends again and again, PostgreSQL's planning costs more than running them.
/// Its plan may be generic (PostgreSQL's `plan_cache_mode`), so mark only statements whose best
/// plan does not depend on the parameters' values (lookups by key, inserts, updates by key).
///
/// ```swift
/// let lock = PostgresStatement("SELECT 1 FROM zones WHERE id = $1 FOR UPDATE", [Int64(7)], prepared: true)
/// print(lock.prepared)
/// ```
public struct PostgresStatement {
    /// The SQL, with parameters `$1`, `$2`, ….
    public var sql: String
    /// The parameters' values.
    public var parameters: [any PostgresBindable]
    /// Whether the connection keeps the statement prepared, parsed and planned once.
    public var prepared: Bool

    /// Creates a statement.
    public init(_ sql: String, _ parameters: [any PostgresBindable] = [], prepared: Bool = false) {
        self.sql = sql
        self.parameters = parameters
        self.prepared = prepared
    }
}
