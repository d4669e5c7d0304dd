import StratusServerSQL
import StratusSQL
import StratusSQLite

/// The tables of subscriptions, web courier tokens and queues, and asset bookkeeping.
///
/// A migration of its own, registered after the records migration, so the
/// records schema stays untouched.
enum SQLitePushStoreSchema {
    static let migrationIdentifier = "push-v1-subscriptions-courier-assets"

    static func register(in migrator: inout SQLiteMigrator) {
        migrator.registerMigration(migrationIdentifier) { db in try db.execute(sql: SQLRecordSchema.pushTables(.sqlite)) }
    }

    /// The push outbox, the subscriptions' candidate index and token owners (`SQLPushSchema`,
    /// shared with PostgreSQL), registered after every earlier migration.
    static func registerOutbox(in migrator: inout SQLiteMigrator) {
        migrator.registerMigration("push-v2-outbox-candidate-index-token-owner") { db in
            try db.execute(sql: SQLPushSchema.outbox(.sqlite))
            try SQLPushSchema.backfillWatches(db)
            try db.execute(sql: SQLPushSchema.watchIndex(.sqlite))
        }
    }
}
