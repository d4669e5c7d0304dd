/// One statement of a ``PostgresConnection/pipeline(_:)`` batch.
public struct PostgresStatement {
    /// The SQL, with parameters `$1`, `$2`, ….
    public var sql: String
    /// The parameters' values.
    public var parameters: [any PostgresBindable]

    /// Creates a statement.
    public init(_ sql: String, _ parameters: [any PostgresBindable] = []) {
        self.sql = sql
        self.parameters = parameters
    }
}
