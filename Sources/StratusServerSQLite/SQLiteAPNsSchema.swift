import StratusServerSQL
import StratusSQL
import StratusSQLite

/// The tables of APNs delivery (design note 0013): credentials per container environment, device
/// tokens per user, and the durable delivery queue (`SQLPushSchema.apnsTables`, shared with
/// PostgreSQL). A migration of its own, registered last.
enum SQLiteAPNsSchema {
    static func register(in migrator: inout SQLiteMigrator) {
        migrator.registerMigration("apns-v1-credentials-device-tokens-queue") { db in try db.execute(sql: SQLPushSchema.apnsTables(.sqlite)) }
    }
}
