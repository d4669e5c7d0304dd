import StratusPostgres
import StratusServerSQL
import StratusSQL

/// The push outbox, the subscriptions' candidate index and token owners (issue 14, findings 6 and 17):
/// `SQLPushSchema`'s tables and backfill, shared with SQLite. Registered after every earlier migration.
enum PostgresPushSchema {
    static func register(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v9-push-outbox-candidate-index-token-owner") { db in
            try db.execute(SQLPushSchema.outbox(.postgres))
            try SQLPushSchema.backfillWatches(db)
            try db.execute(SQLPushSchema.watchIndex(.postgres))
        }
    }
}
