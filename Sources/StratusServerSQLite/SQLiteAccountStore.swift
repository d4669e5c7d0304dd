public import StratusServer
import StratusServerSQL
import StratusSQL
import StratusSQLite

/// Accounts, sessions, API tokens and server-to-server keys in the same SQLite file as the records
/// (the statements are `SQLAccountTransaction`'s, shared with PostgreSQL).
///
/// Reads use the reader pool; writes take the writer connection in their own
/// transaction, serialized with record writes.
extension SQLiteRecordStore: AccountStore {
    /// Runs `body` in a read snapshot on a reader connection.
    public func readAccounts<T: Sendable>(_ body: @escaping @Sendable (any AccountStoreReader) throws -> T) async throws -> T {
        try await pool.read { db in try body(SQLAccountTransaction(db)) }
    }

    /// Runs `body` in an immediate transaction on the writer connection.
    public func writeAccounts<T: Sendable>(_ body: @escaping @Sendable (any AccountStoreWriter) throws -> T) async throws -> T {
        try await pool.write { db in try body(SQLAccountTransaction(db)) }
    }

    /// Runs `body` in a read transaction on one of the connections that read the credential
    /// generation, on the caller's thread: the API token and web auth session of each request,
    /// read without a hop to a reader connection and back; `nil` when both are busy.
    public func readAccountsInPlace<T: Sendable>(_ body: @Sendable (any AccountStoreReader) throws -> T) throws -> T? {
        try credentials.readInPlace { db in try db.transaction(.deferred) { db in try body(SQLAccountTransaction(db)) } }
    }
}

/// The account tables, added by a migration after the record tables.
enum SQLiteAccountSchema {
    static func register(in migrator: inout SQLiteMigrator) {
        migrator.registerMigration("v4-accounts-sessions-tokens-keys") { db in
            try db.execute(sql: SQLAccountSchema.tables(.sqlite))
        }
        migrator.registerMigration("auth-v3-email-verified") { db in
            try db.execute(sql: SQLAccountSchema.emailVerifiedColumn(.sqlite))
        }
        migrator.registerMigration("auth-v4-disabled") { db in
            try db.execute(sql: SQLAccountSchema.disabledColumn(.sqlite))
        }
    }
}
