public import Foundation
public import StratusSQL

/// The shared SQL interface on PostgreSQL: statements rendered with `$1`, `$2`, …, values sent
/// in text format.
extension PostgresConnection: SQLExecutor {
    /// ``SQLDialect/postgres``.
    public var dialect: SQLDialect { .postgres }

    /// Runs one statement.
    ///
    /// - Parameter sql: Exactly one statement.
    /// - Returns: The affected row count.
    /// - Throws: ``PostgresError``.
    @discardableResult
    public func execute(literal sql: SQL) throws -> Int {
        try execute(sql.text(for: .postgres), Self.parameters(sql))
    }

    /// Calls `body` with each row.
    ///
    /// - Parameters:
    ///   - sql: Exactly one statement.
    ///   - body: Reads one row.
    /// - Throws: ``PostgresError``, or what `body` throws.
    public func forEachRow(literal sql: SQL, _ body: (any SQLRow) throws -> Void) throws {
        for row in try query(sql.text(for: .postgres), Self.parameters(sql)) { try body(row) }
    }

    /// The first row, transformed.
    ///
    /// - Parameters:
    ///   - sql: Exactly one statement.
    ///   - transform: Makes a value from the row.
    /// - Returns: The value, or `nil` without a row.
    /// - Throws: ``PostgresError``, or what `transform` throws.
    public func fetchOne<Element>(literal sql: SQL, _ transform: (any SQLRow) throws -> Element) throws -> Element? {
        try queryFirst(sql.text(for: .postgres), Self.parameters(sql)).map(transform)
    }

    /// Sends the statements in one pipeline (``pipeline(_:)``).
    ///
    /// - Parameter statements: The statements.
    /// - Throws: ``PostgresError`` of the first that failed.
    public func executeBatch(literal statements: [SQL]) throws {
        try pipeline(statements.map(Self.statement))
    }

    /// Queues the statement (``enqueue(_:)``): it goes out with the next statement or the commit.
    ///
    /// - Parameter sql: Exactly one statement.
    public func enqueue(literal sql: SQL) throws {
        enqueue(Self.statement(sql))
    }

    /// Runs `body` in a `READ COMMITTED` transaction (``transaction(isolation:readOnly:_:)``).
    ///
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``PostgresError``.
    public func inTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        try transaction { _ in try body() }
    }

    /// Runs `body` in a savepoint (``savepoint(_:)``).
    ///
    /// - Parameter body: The work.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``PostgresError``.
    public func inSavepoint<Result>(_ body: () throws -> Result) throws -> Result {
        try savepoint(body)
    }

    /// The statement as a pipeline entry.
    ///
    /// - Parameter sql: The statement.
    /// - Returns: Its text for PostgreSQL and its parameters.
    public static func statement(_ sql: SQL) -> PostgresStatement {
        PostgresStatement(sql.text(for: .postgres), parameters(sql))
    }

    private static func parameters(_ sql: SQL) -> [any PostgresBindable] {
        sql.values.map { $0 as any PostgresBindable }
    }
}

extension SQLValue: PostgresBindable {
    /// PostgreSQL's text form: decimal, `t`/`f`, `\x` hex for bytes, `nil` for `NULL`.
    public var postgresText: String? {
        switch self {
        case .null: nil
        case .integer(let integer): integer.postgresText
        case .real(let real): real.postgresText
        case .text(let text): text
        case .blob(let data): data.postgresText
        case .bool(let bool): bool.postgresText
        }
    }
}

extension PostgresRow: SQLRow {
    /// Whether the column is `NULL`.
    public func isNull(at index: Int) -> Bool { values[index] == nil }
    /// Parses decimal digits.
    public func int64(at index: Int) throws -> Int64 { try decoded(at: index, as: Int64.self) }
    /// Parses float text.
    public func double(at index: Int) throws -> Double { try decoded(at: index, as: Double.self) }
    /// Parses `t`/`f`.
    public func bool(at index: Int) throws -> Bool { try decoded(at: index, as: Bool.self) }
    /// The text.
    public func string(at index: Int) throws -> String { try decoded(at: index, as: String.self) }
    /// Parses `bytea` hex.
    public func data(at index: Int) throws -> Data { try decoded(at: index, as: Data.self) }
}
