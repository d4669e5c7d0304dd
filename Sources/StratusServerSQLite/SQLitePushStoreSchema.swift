import Foundation
import StratusServer
import StratusSQLite
import StratusWire

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

    /// The push outbox, the subscriptions' candidate index and token owners (issue 14, findings 6
    /// and 17), registered after every earlier migration.
    ///
    /// Subscriptions gain the record type and zone they watch (filled in from their bodies), indexed
    /// with their fan-out order; tokens gain the user who created them (`NULL` for older tokens,
    /// which then only the user they are bound to may register again).
    static func registerOutbox(in migrator: inout SQLiteMigrator) {
        migrator.registerMigration("push-v2-outbox-candidate-index-token-owner") { db in
            try db.execute(sql: """
                ALTER TABLE subscriptions ADD COLUMN record_type TEXT;
                ALTER TABLE subscriptions ADD COLUMN zone_name TEXT;
                ALTER TABLE push_tokens ADD COLUMN owner TEXT;
                CREATE INDEX push_tokens_by_owner ON push_tokens (container, environment, owner) WHERE owner IS NOT NULL;

                -- Changes committed by records writes, fanned out to subscriptions after the commit, in
                -- id order; the cursor is the last candidate subscription (subscriber, ID) handled.
                CREATE TABLE push_outbox (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    zone_name TEXT NOT NULL,
                    payload BLOB NOT NULL,
                    created_at INTEGER NOT NULL,
                    cursor_subscriber TEXT,
                    cursor_subscription TEXT
                );
                """)
            try backfillWatches(db)
            try db.execute(sql: """
                CREATE INDEX subscriptions_by_watch
                    ON subscriptions (container, environment, scope, owner, record_type, zone_name, subscriber, subscription_id);
                """)
        }
    }

    /// Sets each existing subscription's watched record type and zone from its body.
    private static func backfillWatches(_ db: SQLiteConnection) throws {
        let rows = try db.fetchAll(
            "SELECT container, environment, scope, owner, subscriber, subscription_id, body FROM subscriptions"
        ) { row in
            (key: [try row[0], try row[1], try row[2], try row[3], try row[4], try row[5]] as [String], body: try row[6] as Data)
        }
        for row in rows {
            let watch = SubscriptionWatch(try WireCoding.decode(Subscription.self, from: row.body))
            try db.execute(
                """
                UPDATE subscriptions SET record_type = ?, zone_name = ?
                WHERE container = ? AND environment = ? AND scope = ? AND owner = ? AND subscriber = ? AND subscription_id = ?
                """,
                SQLiteArguments([watch.recordType, watch.zoneName] + row.key.map { $0 as (any SQLiteValueConvertible)? })
            )
        }
    }
}
