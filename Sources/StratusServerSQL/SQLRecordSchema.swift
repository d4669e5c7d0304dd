public import StratusSQL

/// The first tables of both back ends: containers, schemas, the database and zone change logs,
/// records and references (`v1-records-zones-change-log`, `pg-v1-records-zones-change-log`), and
/// subscriptions, courier tokens and queues and asset bookkeeping (`push-v1-…`, `pg-v1-push-assets`).
///
/// Every table leads with (container, environment, …, owner) or with a zone ID, which implies
/// them (a zone row carries its container, environment, scope and owner), so the data can be
/// distributed by owner. They differ by back end in column types, in how a zone is numbered
/// and a live row is indexed, and in the courier queue's key (`SQLColumnTypes`).
public enum SQLRecordSchema {
    /// Containers, schemas, databases, zones, records and references.
    ///
    /// - Parameter dialect: The back end's dialect.
    /// - Returns: Statements separated by `;`, without parameters.
    public static func tables(_ dialect: SQLDialect) -> String {
        let types = SQLColumnTypes(dialect)
        return """
            CREATE TABLE containers (
                identifier TEXT PRIMARY KEY NOT NULL,
                created_at \(types.integer) NOT NULL
            )\(types.withoutRowID);

            CREATE TABLE schemas (
                container TEXT NOT NULL,
                environment TEXT NOT NULL,
                body \(types.blob) NOT NULL,
                PRIMARY KEY (container, environment)
            )\(types.withoutRowID);

            -- One row per database (container, environment, scope, owner): its change-log position.
            -- PostgreSQL drops the counter later (pg-v11-database-log-transaction-ids): its zones are
            -- stamped with transaction IDs, and the row only lists the database and serializes quota checks.
            CREATE TABLE databases (
                container TEXT NOT NULL,
                environment TEXT NOT NULL,
                scope TEXT NOT NULL,
                owner TEXT NOT NULL,
                change_seq \(types.integer) NOT NULL DEFAULT 0,
                PRIMARY KEY (container, environment, scope, owner)
            )\(types.withoutRowID);

            -- Zones; a deleted zone keeps its row so database change feeds can report it.
            -- `change_seq` is the zone's record change sequence.
            CREATE TABLE zones (
                id \(types.rowKey),
                container TEXT NOT NULL,
                environment TEXT NOT NULL,
                scope TEXT NOT NULL,
                owner TEXT NOT NULL,
                zone_name TEXT NOT NULL,
                change_seq \(types.integer) NOT NULL DEFAULT 0,
                db_seq \(types.integer) NOT NULL,
                created_at \(types.integer) NOT NULL,
                deleted \(types.boolean) NOT NULL DEFAULT \(types.falseLiteral)
            );
            CREATE UNIQUE INDEX zones_live ON zones (container, environment, scope, owner, zone_name) WHERE \(types.isFalse("deleted"));
            CREATE INDEX zones_changes ON zones (container, environment, scope, owner, db_seq);

            -- Records and tombstones; `seq` is the zone change sequence of the last change.
            CREATE TABLE records (
                zone_id \(types.integer) NOT NULL,
                record_name TEXT NOT NULL,
                record_type TEXT NOT NULL,
                change_tag TEXT NOT NULL,
                seq \(types.integer) NOT NULL,
                deleted \(types.boolean) NOT NULL DEFAULT \(types.falseLiteral),
                fields \(types.blob),
                created_at \(types.integer) NOT NULL,
                created_by TEXT NOT NULL,
                created_device TEXT NOT NULL,
                modified_at \(types.integer) NOT NULL,
                modified_by TEXT NOT NULL,
                modified_device TEXT NOT NULL,
                PRIMARY KEY (zone_id, record_name)
            )\(types.withoutRowID);
            CREATE UNIQUE INDEX records_changes ON records (zone_id, seq);
            CREATE INDEX records_by_type ON records (zone_id, record_type, record_name) WHERE \(types.isFalse("deleted"));

            -- Outgoing references of live records, looked up by target.
            CREATE TABLE record_refs (
                zone_id \(types.integer) NOT NULL,
                target_name TEXT NOT NULL,
                source_name TEXT NOT NULL,
                field_name TEXT NOT NULL,
                action TEXT NOT NULL,
                PRIMARY KEY (zone_id, target_name, source_name, field_name)
            )\(types.withoutRowID);
            CREATE INDEX record_refs_by_source ON record_refs (zone_id, source_name);
            """
    }

    /// Subscriptions, web courier tokens and queues, and asset bookkeeping.
    ///
    /// - Parameter dialect: The back end's dialect.
    /// - Returns: Statements separated by `;`, without parameters.
    public static func pushTables(_ dialect: SQLDialect) -> String {
        let types = SQLColumnTypes(dialect)
        let user = dialect == .sqlite ? "user" : "user_name"
        let queue =
            dialect == .sqlite
            ? """
            CREATE TABLE push_queue (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                token TEXT NOT NULL,
                payload BLOB NOT NULL
            );
            CREATE INDEX push_queue_by_token ON push_queue (token, id);
            """
            : """
            CREATE TABLE push_queue (
                token TEXT NOT NULL,
                id BIGINT GENERATED ALWAYS AS IDENTITY,
                payload BYTEA NOT NULL,
                PRIMARY KEY (token, id)
            );
            """
        return """
            -- Subscriptions by database (container, environment, scope, owner), then subscriber.
            CREATE TABLE subscriptions (
                container TEXT NOT NULL,
                environment TEXT NOT NULL,
                scope TEXT NOT NULL,
                owner TEXT NOT NULL,
                subscriber TEXT NOT NULL,
                subscription_id TEXT NOT NULL,
                body \(types.blob) NOT NULL,
                created_at \(types.integer) NOT NULL,
                PRIMARY KEY (container, environment, scope, owner, subscriber, subscription_id)
            )\(types.withoutRowID);

            -- Web courier tokens (keyed by the token, which is random); `\(user)` is set by tokens/register.
            -- `dropped` counts notifications lost past the backlog limit since the last delivery (a resync marker is owed).
            CREATE TABLE push_tokens (
                token TEXT PRIMARY KEY NOT NULL,
                container TEXT NOT NULL,
                environment TEXT NOT NULL,
                apns_environment TEXT NOT NULL,
                \(user) TEXT,
                created_at \(types.integer) NOT NULL,
                expires_at \(types.integer) NOT NULL,
                queued \(types.integer) NOT NULL DEFAULT 0,
                dropped \(types.integer) NOT NULL DEFAULT 0
            )\(types.withoutRowID);
            CREATE INDEX push_tokens_by_user ON push_tokens (container, environment, \(user)) WHERE \(user) IS NOT NULL;
            CREATE INDEX push_tokens_by_expiry ON push_tokens (expires_at);

            -- Each token's FIFO of notification payloads, consumed on delivery.
            \(queue)

            -- Asset contents (content-addressed files) and the record fields referencing them.
            CREATE TABLE assets (
                key TEXT PRIMARY KEY NOT NULL,
                size \(types.integer) NOT NULL,
                released_at \(types.integer) NOT NULL
            )\(types.withoutRowID);
            CREATE INDEX assets_by_release ON assets (released_at);

            CREATE TABLE asset_refs (
                zone_id \(types.integer) NOT NULL,
                record_name TEXT NOT NULL,
                field_name TEXT NOT NULL,
                position \(types.integer) NOT NULL,
                key TEXT NOT NULL,
                PRIMARY KEY (zone_id, record_name, field_name, position)
            )\(types.withoutRowID);
            CREATE INDEX asset_refs_by_key ON asset_refs (key);
            """
    }
}
