import Foundation
import StratusPostgres
import StratusServer
import StratusWire

/// The push outbox, the subscriptions' candidate index and token owners (issue 14, findings 6 and 17).
///
/// Subscriptions gain the record type and zone they watch (filled in from their bodies), indexed
/// with their fan-out order; tokens gain the user who created them (`NULL` for older tokens,
/// which then only the user they are bound to may register again). Registered after every
/// earlier migration.
enum PostgresPushSchema {
    static func register(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v9-push-outbox-candidate-index-token-owner") { db in
            try db.execute("""
                ALTER TABLE subscriptions ADD COLUMN record_type TEXT;
                ALTER TABLE subscriptions ADD COLUMN zone_name TEXT;
                ALTER TABLE push_tokens ADD COLUMN owner_name TEXT;
                CREATE INDEX push_tokens_by_owner ON push_tokens (container, environment, owner_name) WHERE owner_name IS NOT NULL;

                -- Changes committed by records writes, fanned out to subscriptions after the commit, in
                -- id order; the cursor is the last candidate subscription (subscriber, ID) handled.
                CREATE TABLE push_outbox (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    container TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    zone_name TEXT NOT NULL,
                    payload BYTEA NOT NULL,
                    created_at BIGINT NOT NULL,
                    cursor_subscriber TEXT,
                    cursor_subscription TEXT
                );
                """)
            try backfillWatches(db)
            try db.execute("""
                CREATE INDEX subscriptions_by_watch
                    ON subscriptions (container, environment, scope, owner, record_type, zone_name, subscriber, subscription_id);
                -- Statistics now, so the planner probes the new index (not the primary key) from the first write on.
                ANALYZE subscriptions;
                """)
        }
    }

    /// Sets each existing subscription's watched record type and zone from its body.
    private static func backfillWatches(_ db: PostgresConnection) throws {
        let rows = try db.query("SELECT container, environment, scope, owner, subscriber, subscription_id, body FROM subscriptions")
        for row in rows {
            let watch = SubscriptionWatch(try WireCoding.decode(Subscription.self, from: try row[6] as Data))
            let key: [any PostgresBindable] = try (0..<6).map { try row[$0] as String }
            try db.execute(
                """
                UPDATE subscriptions SET record_type = $7, zone_name = $8
                WHERE container = $1 AND environment = $2 AND scope = $3 AND owner = $4 AND subscriber = $5 AND subscription_id = $6
                """,
                key + [watch.recordType, watch.zoneName]
            )
        }
    }
}
