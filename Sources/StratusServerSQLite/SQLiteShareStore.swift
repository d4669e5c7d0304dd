import StratusServer
import StratusServerSQL
import StratusSQL
import StratusSQLite

/// Shares, their participants and minted short GUIDs, and the usage counters of quotas
/// (design note 0017): the tables and statements are `SQLShareSchema`'s and `SQLShareStore`'s
/// and `SQLUsageStore`'s, shared with PostgreSQL.
enum SQLiteShareSchema {
    static let migrationIdentifier = "share-v1-shares-participants-short-guids"
    static let usageMigrationIdentifier = "quota-v1-zone-usage"

    /// The share tables, registered after the usage migration.
    static func register(in migrator: inout SQLiteMigrator) {
        migrator.registerMigration(migrationIdentifier) { db in try db.execute(sql: SQLShareSchema.tables(.sqlite)) }
    }

    /// The hierarchy moves table (`share-v2-hierarchy-moves`), registered after every earlier migration.
    static func registerHierarchyMoves(in migrator: inout SQLiteMigrator) {
        migrator.registerMigration("share-v2-hierarchy-moves") { db in try db.execute(sql: SQLShareSchema.hierarchyMoves(.sqlite)) }
    }

    /// The usage table, registered after the push migration.
    static func registerUsage(in migrator: inout SQLiteMigrator) {
        migrator.registerMigration(usageMigrationIdentifier) { db in try db.execute(sql: SQLShareSchema.zoneUsage(.sqlite)) }
    }
}

extension SQLiteStoreTransaction: SQLStoreTransaction, SQLShareStore, SQLUsageStore {
    /// The transaction's connection.
    var executor: any SQLExecutor { db }

    /// Nothing to lock: the one writer connection already runs quota checks one at a time.
    func lockUsage(of database: DatabaseKey) throws {}
}
