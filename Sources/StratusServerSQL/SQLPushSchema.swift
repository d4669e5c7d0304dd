import Foundation
public import StratusSQL
import StratusServer
import StratusWire

/// The push outbox, the subscriptions' candidate index and token owners (issue 14, findings 6
/// and 17), and the APNs tables (design note 0013): the same on both back ends but for column
/// types and the token owner column (`owner` on SQLite, `owner_name` on PostgreSQL).
///
/// Subscriptions gain the record type and zone they watch (filled in from their bodies), indexed
/// with their fan-out order; tokens gain the user who created them (`NULL` for older tokens,
/// which then only the user they are bound to may register again).
public enum SQLPushSchema {
    /// The outbox table and the new columns.
    ///
    /// - Parameter dialect: The back end's dialect.
    /// - Returns: Statements separated by `;`, without parameters.
    public static func outbox(_ dialect: SQLDialect) -> String {
        let types = SQLColumnTypes(dialect)
        let owner = dialect == .sqlite ? "owner" : "owner_name"
        return """
            ALTER TABLE subscriptions ADD COLUMN record_type TEXT;
            ALTER TABLE subscriptions ADD COLUMN zone_name TEXT;
            ALTER TABLE push_tokens ADD COLUMN \(owner) TEXT;
            CREATE INDEX push_tokens_by_owner ON push_tokens (container, environment, \(owner)) WHERE \(owner) IS NOT NULL;

            -- Changes committed by records writes, fanned out to subscriptions after the commit, in
            -- id order; the cursor is the last candidate subscription (subscriber, ID) handled.
            CREATE TABLE push_outbox (
                id \(types.identityKey),
                container TEXT NOT NULL,
                environment TEXT NOT NULL,
                scope TEXT NOT NULL,
                owner TEXT NOT NULL,
                zone_name TEXT NOT NULL,
                payload \(types.blob) NOT NULL,
                created_at \(types.integer) NOT NULL,
                cursor_subscriber TEXT,
                cursor_subscription TEXT
            );
            """
    }

    /// Sets each existing subscription's watched record type and zone from its body.
    ///
    /// - Parameter db: The migration's connection.
    /// - Throws: The driver's error, or a body that does not decode.
    public static func backfillWatches(_ db: any SQLExecutor) throws {
        let rows = try db.fetchAll(literal: "SELECT container, environment, scope, owner, subscriber, subscription_id, body FROM subscriptions") {
            row in (key: try (0..<6).map { try row[$0] as String }, body: try row[6] as Data)
        }
        for row in rows {
            let watch = SubscriptionWatch(try WireCoding.decode(Subscription.self, from: row.body))
            let key = row.key
            try db.execute(
                literal: """
                    UPDATE subscriptions SET record_type = \(watch.recordType), zone_name = \(watch.zoneName)
                    WHERE container = \(key[0]) AND environment = \(key[1]) AND scope = \(key[2]) AND owner = \(key[3])
                        AND subscriber = \(key[4]) AND subscription_id = \(key[5])
                    """
            )
        }
    }

    /// The candidate index, made after the backfill (with fresh statistics on PostgreSQL, so the
    /// planner probes it, not the primary key, from the first write on).
    ///
    /// - Parameter dialect: The back end's dialect.
    /// - Returns: Statements separated by `;`, without parameters.
    public static func watchIndex(_ dialect: SQLDialect) -> String {
        """
        CREATE INDEX subscriptions_by_watch
            ON subscriptions (container, environment, scope, owner, record_type, zone_name, subscriber, subscription_id);
        \(dialect == .postgres ? "ANALYZE subscriptions;" : "")
        """
    }

    /// APNs credentials per container environment, device tokens per user, and the durable
    /// delivery queue: a claim leases a row to one sender until `lease_until`, a retry waits until `not_before`.
    ///
    /// - Parameter dialect: The back end's dialect.
    /// - Returns: Statements separated by `;`, without parameters.
    public static func apnsTables(_ dialect: SQLDialect) -> String {
        let types = SQLColumnTypes(dialect)
        let owner = dialect == .sqlite ? "owner" : "owner_name"
        return """
            -- Token-based APNs credentials; `private_key` is the .p8 key (PKCS #8 PEM), never shown back.
            CREATE TABLE apns_credentials (
                container TEXT NOT NULL,
                environment TEXT NOT NULL,
                key_id TEXT NOT NULL,
                team_id TEXT NOT NULL,
                topic TEXT NOT NULL,
                private_key TEXT NOT NULL,
                updated_at \(types.integer) NOT NULL,
                PRIMARY KEY (container, environment)
            )\(types.withoutRowID);

            -- Device tokens from tokens/register, each owned by the user who last registered it.
            CREATE TABLE apns_device_tokens (
                container TEXT NOT NULL,
                environment TEXT NOT NULL,
                apns_environment TEXT NOT NULL,
                token TEXT NOT NULL,
                \(owner) TEXT NOT NULL,
                registered_at \(types.integer) NOT NULL,
                PRIMARY KEY (container, environment, apns_environment, token)
            )\(types.withoutRowID);
            CREATE INDEX apns_device_tokens_by_owner ON apns_device_tokens (container, environment, \(owner), registered_at);

            -- Pushes fan-out queued for devices, deleted once APNs answered.
            CREATE TABLE apns_queue (
                id \(types.identityKey),
                container TEXT NOT NULL,
                environment TEXT NOT NULL,
                apns_environment TEXT NOT NULL,
                token TEXT NOT NULL,
                payload \(types.blob) NOT NULL,
                push_type TEXT NOT NULL,
                created_at \(types.integer) NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                not_before \(types.integer) NOT NULL DEFAULT 0,
                lease_until \(types.integer) NOT NULL DEFAULT 0
            );
            CREATE INDEX apns_queue_by_token ON apns_queue (token, id);
            """
    }
}
