import Foundation
import StratusPostgres
import StratusServer
import StratusServerPostgres
import StratusTesting
import StratusWire
import Testing

/// The push outbox migration on a database that already has subscriptions and tokens.
@Suite(.enabled(if: PostgresScratch.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct PostgresPushSchemaTests {
    /// The schema as it was before the migration, rows written as that version wrote them, then
    /// the migration again: subscriptions get their record type and zone, tokens no owner.
    @Test func upgradingFillsInTheWatchOfExistingSubscriptions() async throws {
        let current = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url())
        let schema = try #require(current.schema)
        let raw = PostgresConnectionPool(url: current.url, size: 1, setup: ["SET search_path TO \(schema)"])
        let bodies = try PushSchemaUpgradeFixture.subscriptions.map { ($0.subscriptionID, try WireCoding.encode($0)) }
        _ = try await raw.withConnection { db in
            try db.execute(
                """
                DROP TABLE push_outbox;
                DROP INDEX subscriptions_by_watch;
                ALTER TABLE subscriptions DROP COLUMN record_type, DROP COLUMN zone_name;
                ALTER TABLE push_tokens DROP COLUMN owner_name;
                DELETE FROM stratus_migrations WHERE identifier = 'pg-v9-push-outbox-candidate-index-token-owner';
                INSERT INTO push_tokens (token, container, environment, apns_environment, user_name, created_at, expires_at)
                VALUES ('t', 'iCloud.c', 'development', 'development', '_alice', 0, 99);
                """)
            for (id, body) in bodies {
                try db.execute(
                    """
                    INSERT INTO subscriptions (container, environment, scope, owner, subscriber, subscription_id, body, created_at)
                    VALUES ('iCloud.c', 'development', 'public', '_public', '_alice', $1, $2, 0)
                    """,
                    [id, body]
                )
            }
        }
        raw.close()

        let upgraded = try await PostgresRecordStore.open(url: current.url, schema: schema, connections: 1)
        #expect(try await PushSchemaUpgradeFixture.observe(upgraded) == PushSchemaUpgradeFixture.expected)
        try await upgraded.close()
        try await current.close()
    }
}
