import StratusSQLite

/// The tables of subscriptions, web courier tokens and queues, and asset bookkeeping.
///
/// A migration of its own, registered after the records migration, so the
/// records schema stays untouched.
enum SQLitePushStoreSchema {
    static let migrationIdentifier = "push-v1-subscriptions-courier-assets"

    static func register(in migrator: inout SQLiteMigrator) {
        migrator.registerMigration(migrationIdentifier) { db in
            try db.execute(sql: """
                -- Subscriptions by database (container, environment, scope, owner), then subscriber.
                CREATE TABLE subscriptions (
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    subscriber TEXT NOT NULL,
                    subscription_id TEXT NOT NULL,
                    body BLOB NOT NULL,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (container, environment, scope, owner, subscriber, subscription_id)
                ) WITHOUT ROWID;

                -- Web courier tokens; `user` is set by tokens/register. `dropped` counts notifications
                -- lost past the backlog limit since the last delivery (a resync marker is owed).
                CREATE TABLE push_tokens (
                    token TEXT PRIMARY KEY NOT NULL,
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    apns_environment TEXT NOT NULL,
                    user TEXT,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    queued INTEGER NOT NULL DEFAULT 0,
                    dropped INTEGER NOT NULL DEFAULT 0
                ) WITHOUT ROWID;
                CREATE INDEX push_tokens_by_user ON push_tokens (container, environment, user) WHERE user IS NOT NULL;
                CREATE INDEX push_tokens_by_expiry ON push_tokens (expires_at);

                -- Each token's FIFO of notification payloads, consumed on delivery.
                CREATE TABLE push_queue (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    token TEXT NOT NULL,
                    payload BLOB NOT NULL
                );
                CREATE INDEX push_queue_by_token ON push_queue (token, id);

                -- Asset contents (content-addressed files) and the record fields referencing them.
                CREATE TABLE assets (
                    key TEXT PRIMARY KEY NOT NULL,
                    size INTEGER NOT NULL,
                    released_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX assets_by_release ON assets (released_at);

                CREATE TABLE asset_refs (
                    zone_id INTEGER NOT NULL,
                    record_name TEXT NOT NULL,
                    field_name TEXT NOT NULL,
                    position INTEGER NOT NULL,
                    key TEXT NOT NULL,
                    PRIMARY KEY (zone_id, record_name, field_name, position)
                ) WITHOUT ROWID;
                CREATE INDEX asset_refs_by_key ON asset_refs (key);
                """)
        }
    }
}
