import StratusPostgres
import StratusServerSQL
import StratusSQL

/// The tables of the PostgreSQL back end, as ordered migrations.
///
/// Every table leads with (container, environment, …, owner) or with a zone ID, which
/// implies them (a zone row carries its container, environment, scope and owner), so the
/// data can be distributed by owner.
enum PostgresRecordStoreSchema {
    static let migrator: PostgresMigrator = {
        var migrator = PostgresMigrator()
        migrator.registerMigration("pg-v1-records-zones-change-log") { db in try db.execute(SQLRecordSchema.tables(.postgres)) }
        migrator.registerMigration("pg-v1-push-assets") { db in try db.execute(SQLRecordSchema.pushTables(.postgres)) }
        PostgresAccountSchema.register(in: &migrator)
        PostgresFieldIndex.register(in: &migrator)
        PostgresRecordStore.registerSecrets(in: &migrator)
        PostgresShareSchema.registerUsage(in: &migrator)
        PostgresShareSchema.register(in: &migrator)
        PostgresRecordStore.registerRateBuckets(in: &migrator)
        PostgresQueryKeyset.registerIndex(in: &migrator)
        PostgresShareSchema.registerHierarchyMoves(in: &migrator)
        PostgresPushSchema.register(in: &migrator)
        PostgresFieldIndex.registerLongitude(in: &migrator)
        PostgresQueryKeyset.registerCreatorIndex(in: &migrator)
        PostgresAPNsSchema.register(in: &migrator)
        PostgresConsoleSchema.register(in: &migrator)
        PostgresStoreTransaction.registerDatabaseLog(in: &migrator)
        PostgresFieldIndex.registerTextPrefixes(in: &migrator)
        return migrator
    }()
}
