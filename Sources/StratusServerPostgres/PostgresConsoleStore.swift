import StratusPostgres
import StratusServerSQL
import StratusSQL
public import StratusServer

/// The web console's administrators, sessions and audit log in the same PostgreSQL database as
/// the records (the statements are `SQLConsoleTransaction`'s, shared with SQLite).
extension PostgresRecordStore: ConsoleStore {
    /// Runs `body` in a read-only snapshot.
    public func readConsole<T: Sendable>(_ body: @escaping @Sendable (any ConsoleStoreReader) throws -> T) async throws -> T {
        try await pool.withConnection { db in
            try db.transaction(isolation: .repeatableRead, readOnly: true) { db in try body(SQLConsoleTransaction(db)) }
        }
    }

    /// Runs `body` in one serializable transaction, run again when PostgreSQL reports a serialization failure:
    /// `body` may run more than once, so it must have no effect outside the database.
    public func writeConsole<T: Sendable>(_ body: @escaping @Sendable (any ConsoleStoreWriter) throws -> T) async throws -> T {
        try await serializableTransaction { db in try body(SQLConsoleTransaction(db)) }
    }
}

/// The console tables, added by a migration after the others.
enum PostgresConsoleSchema {
    static func register(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-console-v1-admins-sessions-audit") { db in
            try db.execute(SQLConsoleSchema.tables(.postgres))
        }
        migrator.registerMigration("pg-console-v2-audit-outcome") { db in
            try db.execute(SQLConsoleSchema.auditOutcome())
        }
    }
}
