import Foundation
import StratusPostgres
import StratusServer
import StratusWire

/// Subscriptions, web courier tokens and queues, and asset bookkeeping on PostgreSQL.
extension PostgresStoreTransaction {
    // MARK: Subscriptions

    private static func subscription(_ database: DatabaseKey) -> (PostgresRow) throws -> StoredSubscription {
        { row in
            StoredSubscription(
                database: database, subscriber: try row[0],
                subscription: try WireCoding.decode(Subscription.self, from: try row[1] as Data), createdAt: try row[2]
            )
        }
    }

    func subscriptions(in database: DatabaseKey, subscriber: String) throws -> [StoredSubscription] {
        try query(
            """
            SELECT subscriber, body, created_at FROM subscriptions
            WHERE container = $1 AND environment = $2 AND scope = $3 AND owner = $4 AND subscriber = $5 ORDER BY subscription_id
            """,
            Self.arguments(database) + [subscriber]
        ).map(Self.subscription(database))
    }

    func subscriptions(in database: DatabaseKey) throws -> [StoredSubscription] {
        try query(
            """
            SELECT subscriber, body, created_at FROM subscriptions
            WHERE container = $1 AND environment = $2 AND scope = $3 AND owner = $4 ORDER BY created_at, subscriber, subscription_id
            """,
            Self.arguments(database)
        ).map(Self.subscription(database))
    }

    func putSubscription(_ stored: StoredSubscription) throws {
        try execute(
            """
            INSERT INTO subscriptions (container, environment, scope, owner, subscriber, subscription_id, body, created_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            ON CONFLICT (container, environment, scope, owner, subscriber, subscription_id)
            DO UPDATE SET body = excluded.body, created_at = excluded.created_at
            """,
            Self.arguments(stored.database)
                + [stored.subscriber, stored.subscription.subscriptionID, try WireCoding.encode(stored.subscription), stored.createdAt]
        )
    }

    func deleteSubscription(id: String, in database: DatabaseKey, subscriber: String) throws -> Bool {
        try execute(
            """
            DELETE FROM subscriptions
            WHERE container = $1 AND environment = $2 AND scope = $3 AND owner = $4 AND subscriber = $5 AND subscription_id = $6
            """,
            Self.arguments(database) + [subscriber, id]
        ) > 0
    }

    // MARK: Tokens

    private static let tokenColumns = "token, container, environment, apns_environment, user_name, created_at, expires_at"

    func pushToken(_ token: String) throws -> PushTokenRow? {
        try first("SELECT \(Self.tokenColumns) FROM push_tokens WHERE token = $1", [token]).map { row in
            let environment: String = try row[2]
            guard let environmentValue = Environment(rawValue: environment) else {
                throw PostgresStoreCorruption(message: "push token has environment '\(environment)'")
            }
            return PushTokenRow(
                token: try row[0], container: try row[1], environment: environmentValue, apnsEnvironment: try row[3],
                user: try row[4], createdAt: try row[5], expiresAt: try row[6]
            )
        }
    }

    func createPushToken(_ token: PushTokenRow) throws {
        try execute(
            "INSERT INTO push_tokens (\(Self.tokenColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7)",
            [token.token, token.container, token.environment.rawValue, token.apnsEnvironment, token.user, token.createdAt, token.expiresAt]
        )
    }

    func bindPushToken(_ token: String, to user: String, now: Int64) throws -> Bool {
        try execute("UPDATE push_tokens SET user_name = $1 WHERE token = $2 AND expires_at > $3", [user, token, now]) > 0
    }

    func deleteExpiredPushTokens(now: Int64) throws -> Int {
        try execute("DELETE FROM push_queue WHERE token IN (SELECT token FROM push_tokens WHERE expires_at <= $1)", [now])
        return try execute("DELETE FROM push_tokens WHERE expires_at <= $1", [now])
    }

    func pushTokens(of user: String, container: String, environment: Environment, now: Int64) throws -> [String] {
        try query(
            "SELECT token FROM push_tokens WHERE container = $1 AND environment = $2 AND user_name = $3 AND expires_at > $4 ORDER BY token",
            [container, environment.rawValue, user, now]
        ).map { try $0[0] }
    }

    // MARK: Queues

    func enqueueNotification(_ payload: [UInt8], token: String, maximumBacklog: Int) throws {
        // The token row's lock (taken by this UPDATE) serializes queue changes of one token across nodes.
        guard let row = try first("UPDATE push_tokens SET queued = queued + 1 WHERE token = $1 RETURNING queued", [token]) else {
            throw PostgresStoreCorruption(message: "a notification was queued for a token with no row")
        }
        // Both queued: they go out with the next statement or the COMMIT, and fail the write if they fail.
        db.enqueue(PostgresStatement("INSERT INTO push_queue (token, payload) VALUES ($1, $2)", [token, payload]))
        // Delivered at commit (and not at all on rollback) to every node's relay, which wakes its
        // parked polls for the token; PostgreSQL folds repeats within one transaction.
        db.enqueue(PostgresStatement("SELECT pg_notify($1, $2)", [pushChannel, token]))
        let queued: Int = try row[0]
        let excess = queued - max(1, maximumBacklog)
        guard excess > 0 else { return }
        try execute(
            "DELETE FROM push_queue WHERE token = $1 AND id IN (SELECT id FROM push_queue WHERE token = $1 ORDER BY id LIMIT $2)", [token, excess]
        )
        try execute("UPDATE push_tokens SET queued = queued - $1, dropped = dropped + $1 WHERE token = $2", [excess, token])
    }

    func dequeueNotification(token: String) throws -> DequeuedNotification? {
        guard let row = try first("SELECT dropped FROM push_tokens WHERE token = $1 FOR UPDATE", [token]) else { return nil }
        let dropped: Int = try row[0]
        if dropped > 0 {
            try execute("UPDATE push_tokens SET dropped = 0 WHERE token = $1", [token])
            return .resync(dropped: dropped)
        }
        guard let head = try first(
            """
            DELETE FROM push_queue WHERE token = $1 AND id = (SELECT id FROM push_queue WHERE token = $1 ORDER BY id LIMIT 1)
            RETURNING payload
            """,
            [token]
        ) else { return nil }
        try execute("UPDATE push_tokens SET queued = queued - 1 WHERE token = $1", [token])
        return .notification(try head[0])
    }

    // MARK: Assets

    /// In a write, the row is share-locked until commit: a collection on another node (which
    /// locks it for update) cannot delete the content this write is about to reference.
    func asset(key: String) throws -> StoredAsset? {
        try first("SELECT key, size, released_at FROM assets WHERE key = $1\(isWriting ? " FOR SHARE" : "")", [key]).map { row in
            StoredAsset(key: try row[0], size: try row[1], releasedAt: try row[2])
        }
    }

    func assetReferenceCount(key: String) throws -> Int {
        try first("SELECT count(*) FROM asset_refs WHERE key = $1", [key]).map { try $0[0] } ?? 0
    }

    func putAsset(key: String, size: Int64, now: Int64) throws {
        try execute(
            "INSERT INTO assets (key, size, released_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET released_at = excluded.released_at",
            [key, size, now]
        )
    }

    func replaceAssetReferences(zoneRowID: Int64, recordName: String, keys: [AssetReferenceKey], now: Int64) throws {
        let previous: [String] = try query(
            "DELETE FROM asset_refs WHERE zone_id = $1 AND record_name = $2 RETURNING key", [zoneRowID, recordName]
        ).map { try $0[0] }
        for reference in keys {
            try execute(
                """
                INSERT INTO asset_refs (zone_id, record_name, field_name, position, key) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (zone_id, record_name, field_name, position) DO UPDATE SET key = excluded.key
                """,
                [zoneRowID, recordName, reference.fieldName, reference.position, reference.key]
            )
        }
        try release(Set(previous).subtracting(keys.map(\.key)), now: now)
    }

    func removeAssetReferences(inZone zoneRowID: Int64, now: Int64) throws {
        let previous: [String] = try query("DELETE FROM asset_refs WHERE zone_id = $1 RETURNING key", [zoneRowID]).map { try $0[0] }
        try release(Set(previous), now: now)
    }

    /// Stamps contents that no longer have any reference, starting their grace period.
    private func release(_ keys: Set<String>, now: Int64) throws {
        for key in keys.sorted() {
            try execute(
                "UPDATE assets SET released_at = $1 WHERE key = $2 AND NOT EXISTS (SELECT 1 FROM asset_refs WHERE key = $2)", [now, key]
            )
        }
    }

    /// Locks the contents it returns (skipping any another transaction holds: an upload of the
    /// same bytes, or a save about to reference them), so none gains a reference before it is deleted.
    func collectableAssets(releasedBefore: Int64, limit: Int) throws -> [String] {
        try query(
            """
            SELECT key FROM assets
            WHERE released_at <= $1 AND NOT EXISTS (SELECT 1 FROM asset_refs WHERE asset_refs.key = assets.key)
            ORDER BY released_at, key LIMIT $2
            FOR UPDATE SKIP LOCKED
            """,
            [releasedBefore, limit]
        ).map { try $0[0] }
    }

    func deleteAsset(key: String) throws {
        try execute("DELETE FROM assets WHERE key = $1", [key])
    }
}
