import StratusPostgres
import StratusServer
import StratusServerSQL
import StratusSQL
import StratusWire

/// Shares, their participants and minted short GUIDs, and the usage counters of quotas, on
/// PostgreSQL (design note 0017): the tables and statements are `SQLShareSchema`'s,
/// `SQLShareStore`'s and `SQLUsageStore`'s, shared with SQLite.
///
/// Every node checks a quota against the same counters. So that two nodes cannot both pass
/// the check with writes that together exceed the quota, `usage(of:)` first locks the
/// database's row in `databases` and then sums in a new statement, whose `READ COMMITTED`
/// snapshot holds every write that committed while it waited (Documentation/0008-postgres.md).
/// Only quota checks lock that row: the database change log no longer does.
enum PostgresShareSchema {
    /// The share tables.
    static func register(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v5-shares-participants-short-guids") { db in try db.execute(SQLShareSchema.tables(.postgres)) }
    }

    /// The hierarchy moves table, registered after every earlier migration.
    static func registerHierarchyMoves(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v8-share-hierarchy-moves") { db in try db.execute(SQLShareSchema.hierarchyMoves(.postgres)) }
    }

    /// The usage table.
    static func registerUsage(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v4-zone-usage") { db in try db.execute(SQLShareSchema.zoneUsage(.postgres)) }
    }
}

extension PostgresStoreTransaction: SQLShareStore, SQLUsageStore {
    /// Buffered with the record writes (`PostgresRecordWrites`), summed per zone: a group of writes
    /// moves each zone's counters in one statement, sent with the next statement or the `COMMIT`.
    func addUsage(_ delta: StorageUsage, zoneRowID: Int64) throws {
        writes.addUsage(delta, zoneRowID: zoneRowID)
    }

    /// Locks the database row (making it if need be) until commit, so quota checks of one
    /// database take turns; queued, it goes out with the sum that follows.
    func lockUsage(of database: DatabaseKey) throws {
        noteDatabaseRowLocked()
        db.enqueue(
            PostgresConnection.statement(
                """
                INSERT INTO databases (container, environment, scope, owner)
                VALUES (\(database.container), \(database.environment.rawValue), \(database.scope.rawValue), \(database.owner))
                ON CONFLICT (container, environment, scope, owner) DO UPDATE SET owner = excluded.owner
                """
            ))
    }
}
