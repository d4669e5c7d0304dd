import StratusPostgres
import StratusServerSQL
import StratusSQL
public import StratusServer
import StratusWire

/// Accounts, sessions, API tokens and server-to-server keys in the same PostgreSQL database as the records
/// (the statements are `SQLAccountTransaction`'s, shared with SQLite).
///
/// Reads run in a read-only snapshot; writes in their own transaction (a unique index keeps
/// e-mail addresses unique across nodes).
extension PostgresRecordStore: AccountStore {
    /// Runs `body` in a read-only snapshot.
    public func readAccounts<T: Sendable>(_ body: @escaping @Sendable (any AccountStoreReader) throws -> T) async throws -> T {
        try await pool.withConnection { db in
            try db.transaction(isolation: .repeatableRead, readOnly: true) { db in try body(SQLAccountTransaction(db)) }
        }
    }

    /// Runs `body` in one serializable transaction, run again when PostgreSQL reports a serialization failure:
    /// `body` may run more than once, so it must have no effect outside the database.
    public func writeAccounts<T: Sendable>(_ body: @escaping @Sendable (any AccountStoreWriter) throws -> T) async throws -> T {
        try await serializableTransaction { db in try body(SQLAccountTransaction(db)) }
    }

    /// Runs `body` in one serializable transaction on a pooled connection, again (up to
    /// ``maximumAttempts`` in all) when PostgreSQL reports a transient failure such as a
    /// serialization failure: `body` may run more than once, so it must have no effect outside the database.
    func serializableTransaction<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await pool.withConnection { db in
                    try db.transaction(isolation: .serializable) { db in try body(db) }
                }
            } catch let error as PostgresError where error.isTransient && attempt < Self.maximumAttempts {
                attempt += 1
            }
        }
    }
}

/// The account tables, added by a migration after the record tables.
enum PostgresAccountSchema {
    static func register(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v1-accounts-sessions-tokens-keys") { db in
            try db.execute(SQLAccountSchema.tables(.postgres))
        }
        migrator.registerMigration("pg-accounts-v2-email-verified") { db in
            try db.execute(SQLAccountSchema.emailVerifiedColumn(.postgres))
        }
        migrator.registerMigration("pg-accounts-v3-disabled") { db in
            try db.execute(SQLAccountSchema.disabledColumn(.postgres))
        }
    }
}
