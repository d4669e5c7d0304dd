import StratusPostgres
import StratusServer
import StratusWire

/// The usage counters of storage quotas on PostgreSQL, one row per zone, as on SQLite.
///
/// Every node checks a quota against the same counters. So that two nodes cannot both pass
/// the check with writes that together exceed the quota, ``usage(of:)`` first locks the
/// database's row in `databases` (which every record write locks at its end anyway, for the
/// database change log) and then sums in a new statement, whose `READ COMMITTED` snapshot
/// holds every write that committed while it waited (Documentation/0008-postgres.md).
enum PostgresUsageSchema {
    static func register(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v4-zone-usage") { db in
            try db.execute("""
                -- Bytes of record data and of referenced assets per zone, kept in step with record writes.
                CREATE TABLE zone_usage (
                    zone_id BIGINT PRIMARY KEY,
                    record_bytes BIGINT NOT NULL DEFAULT 0,
                    asset_bytes BIGINT NOT NULL DEFAULT 0
                );
                """)
        }
    }
}

extension PostgresStoreTransaction: UsageStoreWriter {
    func usage(of database: DatabaseKey) throws -> StorageUsage {
        let key: [any PostgresBindable] = [database.container, database.environment.rawValue, database.scope.rawValue, database.owner]
        let results = try tracking {
            try db.pipeline([
                // Lock the database row (making it if need be) until commit: quota checks of one database take turns.
                PostgresStatement(
                    """
                    INSERT INTO databases (container, environment, scope, owner) VALUES ($1, $2, $3, $4)
                    ON CONFLICT (container, environment, scope, owner) DO UPDATE SET change_seq = databases.change_seq
                    """,
                    key
                ),
                PostgresStatement(
                    """
                    SELECT coalesce(sum(u.record_bytes), 0), coalesce(sum(u.asset_bytes), 0)
                    FROM zones z JOIN zone_usage u ON u.zone_id = z.id
                    WHERE z.container = $1 AND z.environment = $2 AND z.scope = $3 AND z.owner = $4 AND NOT z.deleted
                    """,
                    key
                ),
            ])
        }
        guard let row = results.last?.first else { return .zero }
        return StorageUsage(recordBytes: try row[0], assetBytes: try row[1])
    }

    /// Queued: it goes out with the transaction's next statement or its `COMMIT`.
    func addUsage(_ delta: StorageUsage, zoneRowID: Int64) throws {
        db.enqueue(PostgresStatement(
            """
            INSERT INTO zone_usage (zone_id, record_bytes, asset_bytes) VALUES ($1, $2, $3)
            ON CONFLICT (zone_id) DO UPDATE SET record_bytes = zone_usage.record_bytes + excluded.record_bytes,
                asset_bytes = zone_usage.asset_bytes + excluded.asset_bytes
            """,
            [zoneRowID, delta.recordBytes, delta.assetBytes]
        ))
    }
}
