import StratusPostgres
import StratusServer
import StratusServerSQL

/// A database's zone-change log (`changes/database`, `zones/changes`) without a shared counter
/// (Documentation/0008-postgres.md, "The database change log from transaction IDs").
///
/// A write stamps each zone it creates, deletes or changes the records of with its own
/// transaction ID (`pg_current_xact_id()`, the top-level ID also inside a savepoint), in
/// `zones.db_seq`; the feed is ordered by (ID, zone row ID). Writers of different zones no longer
/// lock a `databases` row through their `COMMIT`, so they may commit out of ID order: a reader
/// returns only stamps below its snapshot's oldest running transaction ID
/// (`pg_snapshot_xmin(pg_current_snapshot())`) — every transaction below it has ended, and every
/// stamp made later is at or above it — so its token never passes a change that commits later.
extension PostgresStoreTransaction {
    /// The writing transaction's ID as a `bigint` (an `xid8` is 64 bits and never wraps).
    static let transactionStamp = "pg_current_xact_id()::text::bigint"

    /// Database counter values of zones stamped before the migration were moved down by this much,
    /// below every transaction ID, in their old order: a token from then still means what it meant.
    static let legacyOffset: Int64 = 1 << 62

    static func registerDatabaseLog(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v11-database-log-transaction-ids") { db in
            // Dropping the counter makes a node of an older version fail its writes loudly rather
            // than stamp zones with counter values that readers would order wrongly.
            try db.execute(
                """
                UPDATE zones SET db_seq = db_seq - \(legacyOffset);
                ALTER TABLE databases DROP COLUMN change_seq;
                DROP INDEX zones_changes;
                CREATE INDEX zones_changes ON zones (container, environment, scope, owner, db_seq, id)
                """
            )
        }
    }

    /// Zones changed after `position` whose stamps are final in this snapshot, then those that
    /// committed at or past the horizon (``DatabaseZoneChanges/heldBack``), at most `limit` in all.
    func zoneChanges(in database: DatabaseKey, after position: DatabaseFeedPosition, limit: Int) throws -> DatabaseZoneChanges {
        // An older token's counter value s: every legacy stamp up to s, none after it.
        let after =
            position.zoneRowID.map { (position.sequence, $0) } ?? (max(position.sequence, 0) - Self.legacyOffset, Int64.max)
        let rows = try query(
            """
            SELECT \(Self.zoneColumns), pg_snapshot_xmin(pg_current_snapshot())::text::bigint FROM zones
            WHERE container = $1 AND environment = $2 AND scope = $3 AND owner = $4 AND (db_seq, id) > ($5, $6)
            ORDER BY db_seq, id LIMIT $7
            """,
            Self.arguments(database) + [after.0, after.1, limit]
        )
        guard let first = rows.first else { return DatabaseZoneChanges(zones: []) }
        let horizon: Int64 = try first[10]
        let zones = try rows.map(Self.zone)
        let final = zones.prefix { $0.databaseSequence < horizon }.count
        return DatabaseZoneChanges(zones: Array(zones.prefix(final)), heldBack: Array(zones.dropFirst(final)), horizon: horizon)
    }

    /// Creates a zone stamped with this transaction's ID; the database's row (which lists the
    /// database for exports and serializes quota checks) is made if missing, without locking it.
    func createZone(named name: String, in database: DatabaseKey, createdAt: Int64) throws -> ZoneRow {
        db.enqueue(
            PostgresStatement(
                "INSERT INTO databases (container, environment, scope, owner) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                Self.arguments(database)
            ))
        guard
            let row = try first(
                """
                INSERT INTO zones (container, environment, scope, owner, zone_name, db_seq, created_at)
                VALUES ($1, $2, $3, $4, $5, \(Self.transactionStamp), $6) RETURNING id, db_seq
                """,
                Self.arguments(database) + [name, createdAt]
            )
        else {
            throw PostgresStoreCorruption(message: "INSERT … RETURNING gave no zone ID")
        }
        let rowID: Int64 = try row[0]
        lockedZones.insert(rowID)
        cache.learnCounter(0, ofZone: rowID)
        return ZoneRow(
            rowID: rowID, database: database, zoneName: name, changeSequence: 0, databaseSequence: try row[1], createdAt: createdAt,
            isDeleted: false
        )
    }
}
