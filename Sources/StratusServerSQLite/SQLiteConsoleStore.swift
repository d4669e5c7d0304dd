public import StratusServer
import StratusServerSQL
import StratusSQL
import StratusSQLite

/// The web console's administrators, sessions and audit log in the same SQLite file as the
/// records (the statements are `SQLConsoleTransaction`'s, shared with PostgreSQL).
extension SQLiteRecordStore: ConsoleStore {
    /// Runs `body` in a read snapshot on a reader connection.
    public func readConsole<T: Sendable>(_ body: @escaping @Sendable (any ConsoleStoreReader) throws -> T) async throws -> T {
        try await pool.read { db in try body(SQLConsoleTransaction(db)) }
    }

    /// Runs `body` in an immediate transaction on the writer connection.
    public func writeConsole<T: Sendable>(_ body: @escaping @Sendable (any ConsoleStoreWriter) throws -> T) async throws -> T {
        try await pool.write { db in try body(SQLConsoleTransaction(db)) }
    }
}

/// The console tables, added by a migration after the others.
enum SQLiteConsoleSchema {
    static func register(in migrator: inout SQLiteMigrator) {
        migrator.registerMigration("console-v1-admins-sessions-audit") { db in
            try db.execute(sql: SQLConsoleSchema.tables(.sqlite))
        }
        migrator.registerMigration("console-v2-audit-outcome") { db in
            try db.execute(sql: SQLConsoleSchema.auditOutcome())
        }
    }
}
