import Foundation
import StratusPostgres
import StratusServer
import StratusWire

/// Subscriptions, web courier tokens and queues, and asset bookkeeping on PostgreSQL.
extension PostgresStoreTransaction {
    // MARK: Subscriptions

    static func subscription(_ database: DatabaseKey) -> (PostgresRow) throws -> StoredSubscription {
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

    /// One probe of the candidate index per watched (record type, zone) pair: an ordered range
    /// scan after the cursor, at most `limit` rows; the arms are merged and cut to `limit` again.
    func subscriptionCandidates(
        in database: DatabaseKey, zoneName: String, recordTypes: Set<String>, after cursor: SubscriptionKey?, limit: Int
    ) throws -> [StoredSubscription] {
        var parameters = Self.arguments(database)
        func placeholder(_ value: any PostgresBindable) -> String {
            parameters.append(value)
            return "$\(parameters.count)"
        }
        let cursorCondition = cursor.map { " AND (subscriber, subscription_id) > (\(placeholder($0.subscriber)), \(placeholder($0.subscriptionID)))" } ?? ""
        let limitPlaceholder = placeholder(limit)
        let arms = SubscriptionWatch.covering(recordTypes: recordTypes, zoneName: zoneName).map { watch -> String in
            let type = watch.recordType.map { "record_type = \(placeholder($0))" } ?? "record_type IS NULL"
            let zone = watch.zoneName.map { "zone_name = \(placeholder($0))" } ?? "zone_name IS NULL"
            return """
                (SELECT subscriber, subscription_id, body, created_at FROM subscriptions
                 WHERE container = $1 AND environment = $2 AND scope = $3 AND owner = $4 AND \(type) AND \(zone)\(cursorCondition)
                 ORDER BY subscriber, subscription_id LIMIT \(limitPlaceholder))
                """
        }
        return try query(
            "SELECT subscriber, body, created_at FROM (\(arms.joined(separator: " UNION ALL "))) AS candidates "
                + "ORDER BY subscriber, subscription_id LIMIT \(limitPlaceholder)",
            parameters
        ).map(Self.subscription(database))
    }

    func putSubscription(_ stored: StoredSubscription) throws {
        let watch = stored.watch
        try execute(
            """
            INSERT INTO subscriptions (container, environment, scope, owner, subscriber, subscription_id, body, created_at, record_type, zone_name)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
            ON CONFLICT (container, environment, scope, owner, subscriber, subscription_id)
            DO UPDATE SET body = excluded.body, created_at = excluded.created_at, record_type = excluded.record_type,
                zone_name = excluded.zone_name
            """,
            Self.arguments(stored.database)
                + [
                    stored.subscriber, stored.subscription.subscriptionID, try WireCoding.encode(stored.subscription), stored.createdAt,
                    watch.recordType, watch.zoneName,
                ]
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

    private static let tokenColumns = "token, container, environment, apns_environment, user_name, created_at, expires_at, owner_name"

    func pushToken(_ token: String) throws -> PushTokenRow? {
        try first("SELECT \(Self.tokenColumns) FROM push_tokens WHERE token = $1", [token]).map { row in
            let environment: String = try row[2]
            guard let environmentValue = Environment(rawValue: environment) else {
                throw PostgresStoreCorruption(message: "push token has environment '\(environment)'")
            }
            return PushTokenRow(
                token: try row[0], container: try row[1], environment: environmentValue, apnsEnvironment: try row[3],
                user: try row[4], owner: try row[7], createdAt: try row[5], expiresAt: try row[6]
            )
        }
    }

    func createPushToken(_ token: PushTokenRow) throws {
        try execute(
            "INSERT INTO push_tokens (\(Self.tokenColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            [
                token.token, token.container, token.environment.rawValue, token.apnsEnvironment, token.user, token.createdAt, token.expiresAt,
                token.owner,
            ]
        )
    }

    func bindPushToken(_ token: String, to user: String, container: String, environment: Environment, now: Int64) throws -> Bool {
        try execute(
            """
            UPDATE push_tokens SET user_name = $1
            WHERE token = $2 AND container = $3 AND environment = $4 AND expires_at > $5
              AND (owner_name = $1 OR (owner_name IS NULL AND user_name = $1))
            """,
            [user, token, container, environment.rawValue, now]
        ) > 0
    }

    func pushTokenCount(ownedBy owner: String, container: String, environment: Environment, now: Int64) throws -> Int {
        try first(
            "SELECT count(*) FROM push_tokens WHERE container = $1 AND environment = $2 AND owner_name = $3 AND expires_at > $4",
            [container, environment.rawValue, owner, now]
        ).map { try $0[0] } ?? 0
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

    func enqueueNotifications(_ payloads: [[UInt8]], token: String, maximumBacklog: Int) throws -> Bool {
        let backlog = max(1, maximumBacklog)
        // Payloads past the backlog would be dropped at once: count them without writing them.
        let kept = Array(payloads.suffix(backlog))
        // The token row's lock (taken by this UPDATE) serializes queue changes of one token across nodes.
        guard let row = try first(
            "UPDATE push_tokens SET queued = queued + $1, dropped = dropped + $2 WHERE token = $3 RETURNING queued",
            [kept.count, payloads.count - kept.count, token]
        ) else { return false }
        // Queued: they go out with the next statement or the COMMIT, and fail the write if they fail.
        for start in stride(from: 0, to: kept.count, by: 500) {
            let chunk = kept[start..<min(start + 500, kept.count)]
            let values = chunk.indices.map { "($1, $\($0 - start + 2))" }.joined(separator: ", ")
            db.enqueue(PostgresStatement("INSERT INTO push_queue (token, payload) VALUES \(values)", [token] + chunk.map { $0 as any PostgresBindable }))
        }
        // Delivered at commit (and not at all on rollback) to every node's relay, which wakes its
        // parked polls for the token; PostgreSQL folds repeats within one transaction.
        db.enqueue(PostgresStatement("SELECT pg_notify($1, $2)", [pushChannel, token]))
        let queued: Int = try row[0]
        let excess = queued - backlog
        guard excess > 0 else { return true }
        try execute(
            "DELETE FROM push_queue WHERE token = $1 AND id IN (SELECT id FROM push_queue WHERE token = $1 ORDER BY id LIMIT $2)", [token, excess]
        )
        try execute("UPDATE push_tokens SET queued = queued - $1, dropped = dropped + $1 WHERE token = $2", [excess, token])
        return true
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

    // MARK: Outbox

    private static let outboxColumns =
        "id, container, environment, scope, owner, zone_name, payload, created_at, cursor_subscriber, cursor_subscription"

    func pushOutbox(limit: Int) throws -> [PushOutboxEntry] {
        try query("SELECT \(Self.outboxColumns) FROM push_outbox ORDER BY id LIMIT $1", [limit]).map { row in
            guard let entry = PushOutboxEntry(
                id: try row[0], container: try row[1], environment: try row[2], scope: try row[3], owner: try row[4], zoneName: try row[5],
                payload: try row[6], createdAt: try row[7], cursorSubscriber: try row[8], cursorSubscription: try row[9]
            ) else {
                throw PostgresStoreCorruption(message: "push outbox entry \(try row[0] as Int64) has an unknown environment or scope")
            }
            return entry
        }
    }

    func appendPushOutbox(_ entry: NewPushOutboxEntry) throws {
        try execute(
            "INSERT INTO push_outbox (container, environment, scope, owner, zone_name, payload, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
            Self.arguments(entry.database) + [entry.zoneName, entry.payload, entry.createdAt]
        )
    }

    /// A compare-and-set under the entry's row lock: a node that planned the same step waits for
    /// the first one's commit, then finds the cursor moved (or the row gone) and changes nothing.
    func advancePushOutbox(id: Int64, from expected: SubscriptionKey?, to progress: PushOutboxProgress) throws -> Bool {
        let expectedParameters: [any PostgresBindable] = [id, expected?.subscriber, expected?.subscriptionID]
        switch progress {
        case .finished:
            return try execute(
                "DELETE FROM push_outbox WHERE id = $1 AND cursor_subscriber IS NOT DISTINCT FROM $2 AND cursor_subscription IS NOT DISTINCT FROM $3",
                expectedParameters
            ) > 0
        case .handled(let key):
            return try execute(
                """
                UPDATE push_outbox SET cursor_subscriber = $4, cursor_subscription = $5
                WHERE id = $1 AND cursor_subscriber IS NOT DISTINCT FROM $2 AND cursor_subscription IS NOT DISTINCT FROM $3
                """,
                expectedParameters + [key.subscriber, key.subscriptionID]
            ) > 0
        }
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
