import StratusPostgres
import StratusServerSQL
import StratusSQL

/// The transaction as the executor of the shared stores: every statement goes to the connection
/// through `tracking`, so a transient failure (deadlock, serialization failure, duplicate key) met
/// by a shared statement makes the store's `write` run again, even if the caller caught it.
extension PostgresStoreTransaction: SQLStoreTransaction, SQLExecutor {
    /// The transaction itself: it forwards to its connection.
    var executor: any SQLExecutor { self }

    var dialect: SQLDialect { .postgres }

    @discardableResult
    func execute(literal sql: SQL) throws -> Int {
        try tracking { try db.execute(literal: sql) }
    }

    func forEachRow(literal sql: SQL, _ body: (any SQLRow) throws -> Void) throws {
        for row in try tracking({ try db.query(sql.text(for: .postgres), sql.values.map { $0 as any PostgresBindable }) }) {
            try body(row)
        }
    }

    func fetchOne<Element>(literal sql: SQL, _ transform: (any SQLRow) throws -> Element) throws -> Element? {
        try tracking { try db.queryFirst(sql.text(for: .postgres), sql.values.map { $0 as any PostgresBindable }) }.map(transform)
    }

    func executeBatch(literal statements: [SQL]) throws {
        try tracking { try db.executeBatch(literal: statements) }
    }

    func enqueue(literal sql: SQL) throws {
        try db.enqueue(literal: sql)
    }

    func inTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        preconditionFailure("a store transaction is already a transaction; use inSavepoint")
    }

    func inSavepoint<Result>(_ body: () throws -> Result) throws -> Result {
        try savepoint(body)
    }
}
