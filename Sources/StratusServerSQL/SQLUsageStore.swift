public import StratusServer
import StratusSQL
import StratusWire

/// The usage counters of storage quotas, one row per zone (design note 0017), for either back end.
///
/// Before it sums, ``usage(of:)`` calls ``lockUsage(of:)``: on PostgreSQL that locks the
/// database's row, so that two nodes cannot both pass a quota check with writes that together
/// exceed it (Documentation/0008-postgres.md); SQLite's single writer already serializes them.
public protocol SQLUsageStore: SQLStoreTransaction, UsageStoreWriter {
    /// Makes quota checks of `database` take turns until this transaction ends.
    ///
    /// - Parameter database: The database whose usage is about to be read.
    /// - Throws: The driver's error.
    func lockUsage(of database: DatabaseKey) throws
}

extension SQLUsageStore {
    /// The usage of the live zones of `database`.
    public func usage(of database: DatabaseKey) throws -> StorageUsage {
        try lockUsage(of: database)
        return try executor.fetchOne(
            literal: """
                SELECT coalesce(sum(u.record_bytes), 0), coalesce(sum(u.asset_bytes), 0)
                FROM zones z JOIN zone_usage u ON u.zone_id = z.id
                WHERE z.container = \(database.container) AND z.environment = \(database.environment.rawValue)
                    AND z.scope = \(database.scope.rawValue) AND z.owner = \(database.owner) AND \(isFalse("z.deleted"))
                """
        ) { row in
            StorageUsage(recordBytes: try row[0], assetBytes: try row[1])
        } ?? .zero
    }

    /// Adds `delta` to the counters of a zone; on PostgreSQL it goes out with the next statement or the commit.
    public func addUsage(_ delta: StorageUsage, zoneRowID: Int64) throws {
        try executor.enqueue(
            literal: """
                INSERT INTO zone_usage (zone_id, record_bytes, asset_bytes) VALUES (\(zoneRowID), \(delta.recordBytes), \(delta.assetBytes))
                ON CONFLICT (zone_id) DO UPDATE SET record_bytes = zone_usage.record_bytes + excluded.record_bytes,
                    asset_bytes = zone_usage.asset_bytes + excluded.asset_bytes
                """
        )
    }
}
