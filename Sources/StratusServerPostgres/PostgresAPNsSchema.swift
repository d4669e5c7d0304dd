import StratusPostgres
import StratusServerSQL
import StratusSQL

/// The tables of APNs delivery (design note 0013): credentials per container environment, device
/// tokens per user, and the durable delivery queue every node claims from (`SQLPushSchema.apnsTables`,
/// shared with SQLite). Registered last.
enum PostgresAPNsSchema {
    static func register(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v10-apns-credentials-device-tokens-queue") { db in try db.execute(SQLPushSchema.apnsTables(.postgres)) }
    }
}
