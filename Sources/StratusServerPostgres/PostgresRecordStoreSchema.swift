import StratusPostgres

/// The tables of the PostgreSQL back end, as ordered migrations.
///
/// Every table leads with (container, environment, …, owner) or with a zone ID, which
/// implies them (a zone row carries its container, environment, scope and owner), so the
/// data can be distributed by owner.
enum PostgresRecordStoreSchema {
    static let migrator: PostgresMigrator = {
        var migrator = PostgresMigrator()
        migrator.registerMigration("pg-v1-records-zones-change-log") { db in
            try db.execute("""
                CREATE TABLE containers (
                    identifier TEXT PRIMARY KEY,
                    created_at BIGINT NOT NULL
                );

                CREATE TABLE schemas (
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    body BYTEA NOT NULL,
                    PRIMARY KEY (container, environment)
                );

                -- One row per database: its change-log position. Writers take the next position with
                -- UPDATE … RETURNING, which holds the row lock until commit (commit order = sequence order).
                CREATE TABLE databases (
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    change_seq BIGINT NOT NULL DEFAULT 0,
                    PRIMARY KEY (container, environment, scope, owner)
                );

                -- Zones; a deleted zone keeps its row so database change feeds can report it.
                -- `change_seq` is the zone's record change sequence, taken under the row lock.
                CREATE TABLE zones (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    zone_name TEXT NOT NULL,
                    change_seq BIGINT NOT NULL DEFAULT 0,
                    db_seq BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    deleted BOOLEAN NOT NULL DEFAULT false
                );
                CREATE UNIQUE INDEX zones_live ON zones (container, environment, scope, owner, zone_name) WHERE NOT deleted;
                CREATE INDEX zones_changes ON zones (container, environment, scope, owner, db_seq);

                -- Records and tombstones; `seq` is the zone change sequence of the last change.
                CREATE TABLE records (
                    zone_id BIGINT NOT NULL,
                    record_name TEXT NOT NULL,
                    record_type TEXT NOT NULL,
                    change_tag TEXT NOT NULL,
                    seq BIGINT NOT NULL,
                    deleted BOOLEAN NOT NULL DEFAULT false,
                    fields BYTEA,
                    created_at BIGINT NOT NULL,
                    created_by TEXT NOT NULL,
                    created_device TEXT NOT NULL,
                    modified_at BIGINT NOT NULL,
                    modified_by TEXT NOT NULL,
                    modified_device TEXT NOT NULL,
                    PRIMARY KEY (zone_id, record_name)
                );
                CREATE UNIQUE INDEX records_changes ON records (zone_id, seq);
                CREATE INDEX records_by_type ON records (zone_id, record_type, record_name) WHERE NOT deleted;

                -- Outgoing references of live records, looked up by target.
                CREATE TABLE record_refs (
                    zone_id BIGINT NOT NULL,
                    target_name TEXT NOT NULL,
                    source_name TEXT NOT NULL,
                    field_name TEXT NOT NULL,
                    action TEXT NOT NULL,
                    PRIMARY KEY (zone_id, target_name, source_name, field_name)
                );
                CREATE INDEX record_refs_by_source ON record_refs (zone_id, source_name);
                """)
        }
        migrator.registerMigration("pg-v1-push-assets") { db in
            try db.execute("""
                CREATE TABLE subscriptions (
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    subscriber TEXT NOT NULL,
                    subscription_id TEXT NOT NULL,
                    body BYTEA NOT NULL,
                    created_at BIGINT NOT NULL,
                    PRIMARY KEY (container, environment, scope, owner, subscriber, subscription_id)
                );

                -- Web courier tokens (keyed by the token, which is random); `user_name` is set by tokens/register.
                CREATE TABLE push_tokens (
                    token TEXT PRIMARY KEY,
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    apns_environment TEXT NOT NULL,
                    user_name TEXT,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    queued BIGINT NOT NULL DEFAULT 0,
                    dropped BIGINT NOT NULL DEFAULT 0
                );
                CREATE INDEX push_tokens_by_user ON push_tokens (container, environment, user_name) WHERE user_name IS NOT NULL;
                CREATE INDEX push_tokens_by_expiry ON push_tokens (expires_at);

                CREATE TABLE push_queue (
                    token TEXT NOT NULL,
                    id BIGINT GENERATED ALWAYS AS IDENTITY,
                    payload BYTEA NOT NULL,
                    PRIMARY KEY (token, id)
                );

                CREATE TABLE assets (
                    key TEXT PRIMARY KEY,
                    size BIGINT NOT NULL,
                    released_at BIGINT NOT NULL
                );
                CREATE INDEX assets_by_release ON assets (released_at);

                CREATE TABLE asset_refs (
                    zone_id BIGINT NOT NULL,
                    record_name TEXT NOT NULL,
                    field_name TEXT NOT NULL,
                    position BIGINT NOT NULL,
                    key TEXT NOT NULL,
                    PRIMARY KEY (zone_id, record_name, field_name, position)
                );
                CREATE INDEX asset_refs_by_key ON asset_refs (key);
                """)
        }
        PostgresAccountSchema.register(in: &migrator)
        PostgresFieldIndex.register(in: &migrator)
        PostgresRecordStore.registerSecrets(in: &migrator)
        PostgresUsageSchema.register(in: &migrator)
        PostgresShareSchema.register(in: &migrator)
        PostgresRecordStore.registerRateBuckets(in: &migrator)
        PostgresQueryKeyset.registerIndex(in: &migrator)
        PostgresShareSchema.registerHierarchyMoves(in: &migrator)
        PostgresPushSchema.register(in: &migrator)
        PostgresFieldIndex.registerLongitude(in: &migrator)
        PostgresQueryKeyset.registerCreatorIndex(in: &migrator)
        PostgresAPNsSchema.register(in: &migrator)
        return migrator
    }()
}
