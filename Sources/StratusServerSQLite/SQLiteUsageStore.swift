import StratusServer
import StratusSQLite
import StratusWire

/// The usage counters of storage quotas, one row per zone (design note 0017).
///
/// A migration of its own, registered after the push migration.
enum SQLiteUsageSchema {
    static let migrationIdentifier = "quota-v1-zone-usage"

    static func register(in migrator: inout SQLiteMigrator) {
        migrator.registerMigration(migrationIdentifier) { db in
            try db.execute(sql: """
                -- Bytes of record data and of referenced assets per zone, kept in step with record writes.
                -- Data written before this migration is not counted.
                CREATE TABLE zone_usage (
                    zone_id INTEGER PRIMARY KEY,
                    record_bytes INTEGER NOT NULL DEFAULT 0,
                    asset_bytes INTEGER NOT NULL DEFAULT 0
                );
                """)
        }
    }
}

extension SQLiteStoreTransaction: UsageStoreWriter {
    func usage(of database: DatabaseKey) throws -> StorageUsage {
        try db.fetchOne(
            """
            SELECT coalesce(sum(u.record_bytes), 0), coalesce(sum(u.asset_bytes), 0)
            FROM zones z JOIN zone_usage u ON u.zone_id = z.id
            WHERE z.container = ? AND z.environment = ? AND z.scope = ? AND z.owner = ? AND z.deleted = 0
            """,
            [database.container, database.environment.rawValue, database.scope.rawValue, database.owner]
        ) { row in
            StorageUsage(recordBytes: try row[0], assetBytes: try row[1])
        } ?? .zero
    }

    func addUsage(_ delta: StorageUsage, zoneRowID: Int64) throws {
        try db.execute(
            """
            INSERT INTO zone_usage (zone_id, record_bytes, asset_bytes) VALUES (?, ?, ?)
            ON CONFLICT (zone_id) DO UPDATE SET record_bytes = record_bytes + excluded.record_bytes,
                asset_bytes = asset_bytes + excluded.asset_bytes
            """,
            [zoneRowID, delta.recordBytes, delta.assetBytes]
        )
    }
}
