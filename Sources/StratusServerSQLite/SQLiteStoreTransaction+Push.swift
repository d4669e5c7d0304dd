import Foundation
import StratusServer
import StratusSQLite
import StratusWire

/// Subscriptions and the web courier queues on SQLite.
extension SQLiteStoreTransaction {
    // MARK: Subscriptions

    static func databaseArguments(_ database: DatabaseKey) -> [any SQLiteValueConvertible] {
        [database.container, database.environment.rawValue, database.scope.rawValue, database.owner]
    }

    static func subscription(_ database: DatabaseKey) -> (SQLiteRow) throws -> StoredSubscription {
        { row in
            let body: Data = try row[1]
            return StoredSubscription(
                database: database, subscriber: try row[0], subscription: try WireCoding.decode(Subscription.self, from: body),
                createdAt: try row[2]
            )
        }
    }

    func subscriptions(in database: DatabaseKey, subscriber: String) throws -> [StoredSubscription] {
        try db.fetchAll(
            """
            SELECT subscriber, body, created_at FROM subscriptions
            WHERE container = ? AND environment = ? AND scope = ? AND owner = ? AND subscriber = ? ORDER BY subscription_id
            """,
            SQLiteArguments(Self.databaseArguments(database) + [subscriber]), Self.subscription(database)
        )
    }

    func subscriptionCandidates(
        in database: DatabaseKey, zoneName: String, recordTypes: Set<String>, after cursor: SubscriptionKey?, limit: Int
    ) throws -> [StoredSubscription] {
        let statement = Self.candidateStatement(in: database, zoneName: zoneName, recordTypes: recordTypes, after: cursor, limit: limit)
        return try db.fetchAll(statement.sql, statement.arguments, Self.subscription(database))
    }

    /// The candidate query: one probe of `subscriptions_by_watch` per watch that covers the change
    /// (an ordered range scan after the cursor, at most `limit` rows), merged and cut to `limit` again.
    static func candidateStatement(
        in database: DatabaseKey, zoneName: String, recordTypes: Set<String>, after cursor: SubscriptionKey?, limit: Int
    ) -> (sql: String, arguments: SQLiteArguments) {
        var arguments: [any SQLiteValueConvertible] = []
        let arms = SubscriptionWatch.covering(recordTypes: recordTypes, zoneName: zoneName).map { watch -> String in
            arguments += databaseArguments(database)
            // Named: without statistics SQLite would rather walk the primary key (every subscription of the database).
            var arm = "SELECT subscriber, subscription_id, body, created_at FROM subscriptions INDEXED BY subscriptions_by_watch "
                + "WHERE container = ? AND environment = ? AND scope = ? AND owner = ?"
            for (column, value) in [("record_type", watch.recordType), ("zone_name", watch.zoneName)] {
                guard let value else {
                    arm += " AND \(column) IS NULL"
                    continue
                }
                arm += " AND \(column) = ?"
                arguments.append(value)
            }
            if let cursor {
                arm += " AND (subscriber, subscription_id) > (?, ?)"
                arguments += [cursor.subscriber, cursor.subscriptionID]
            }
            arguments.append(limit)
            return "SELECT * FROM (\(arm) ORDER BY subscriber, subscription_id LIMIT ?)"
        }
        arguments.append(limit)
        let sql = "SELECT subscriber, body, created_at FROM (\(arms.joined(separator: " UNION ALL "))) ORDER BY subscriber, subscription_id LIMIT ?"
        return (sql, SQLiteArguments(arguments))
    }

    func putSubscription(_ stored: StoredSubscription) throws {
        let body = try WireCoding.encode(stored.subscription)
        let watch = stored.watch
        try db.execute(
            """
            INSERT OR REPLACE INTO subscriptions
                (container, environment, scope, owner, subscriber, subscription_id, body, created_at, record_type, zone_name)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            SQLiteArguments(
                Self.databaseArguments(stored.database)
                    + [stored.subscriber, stored.subscription.subscriptionID, body, stored.createdAt, watch.recordType, watch.zoneName]
            )
        )
    }

    func deleteSubscription(id: String, in database: DatabaseKey, subscriber: String) throws -> Bool {
        try db.execute(
            """
            DELETE FROM subscriptions
            WHERE container = ? AND environment = ? AND scope = ? AND owner = ? AND subscriber = ? AND subscription_id = ?
            """,
            SQLiteArguments(Self.databaseArguments(database) + [subscriber, id])
        )
        return db.changes > 0
    }

    // MARK: Tokens

    private static let tokenColumns = "token, container, environment, apns_environment, user, created_at, expires_at, owner"

    func pushToken(_ token: String) throws -> PushTokenRow? {
        try db.fetchOne("SELECT \(Self.tokenColumns) FROM push_tokens WHERE token = ?", [token]) { row in
            let environment: String = try row[2]
            guard let environmentValue = Environment(rawValue: environment) else {
                throw SQLiteStoreCorruption(message: "push token has environment '\(environment)'")
            }
            return PushTokenRow(
                token: try row[0], container: try row[1], environment: environmentValue, apnsEnvironment: try row[3],
                user: try row[4], owner: try row[7], createdAt: try row[5], expiresAt: try row[6]
            )
        }
    }

    func createPushToken(_ token: PushTokenRow) throws {
        try db.execute(
            "INSERT INTO push_tokens (\(Self.tokenColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                token.token, token.container, token.environment.rawValue, token.apnsEnvironment, token.user, token.createdAt,
                token.expiresAt, token.owner,
            ]
        )
    }

    func bindPushToken(_ token: String, to user: String, container: String, environment: Environment, now: Int64) throws -> Bool {
        try db.execute(
            """
            UPDATE push_tokens SET user = ?
            WHERE token = ? AND container = ? AND environment = ? AND expires_at > ? AND (owner = ? OR (owner IS NULL AND user = ?))
            """,
            [user, token, container, environment.rawValue, now, user, user]
        )
        return db.changes > 0
    }

    func pushTokenCount(ownedBy owner: String, container: String, environment: Environment, now: Int64) throws -> Int {
        try db.fetchOne(
            Int.self, "SELECT count(*) FROM push_tokens WHERE container = ? AND environment = ? AND owner = ? AND expires_at > ?",
            [container, environment.rawValue, owner, now]
        ) ?? 0
    }

    func deleteExpiredPushTokens(now: Int64) throws -> Int {
        try db.execute("DELETE FROM push_queue WHERE token IN (SELECT token FROM push_tokens WHERE expires_at <= ?)", [now])
        try db.execute("DELETE FROM push_tokens WHERE expires_at <= ?", [now])
        return db.changes
    }

    func pushTokens(of user: String, container: String, environment: Environment, now: Int64) throws -> [String] {
        try db.fetchAll(
            String.self,
            "SELECT token FROM push_tokens WHERE container = ? AND environment = ? AND user = ? AND expires_at > ? ORDER BY token",
            [container, environment.rawValue, user, now]
        )
    }

    // MARK: Queues

    func enqueueNotifications(_ payloads: [[UInt8]], token: String, maximumBacklog: Int) throws -> Bool {
        let backlog = max(1, maximumBacklog)
        // Payloads past the backlog would be dropped at once: count them without writing them.
        let kept = payloads.suffix(backlog)
        guard let queued = try db.fetchOne(
            Int.self, "UPDATE push_tokens SET queued = queued + ?, dropped = dropped + ? WHERE token = ? RETURNING queued",
            [kept.count, payloads.count - kept.count, token]
        ) else { return false }
        for payload in kept {
            try db.execute("INSERT INTO push_queue (token, payload) VALUES (?, ?)", [token, payload])
        }
        let excess = queued - backlog
        guard excess > 0 else { return true }
        try db.execute(
            "DELETE FROM push_queue WHERE id IN (SELECT id FROM push_queue WHERE token = ? ORDER BY id LIMIT ?)", [token, excess]
        )
        try db.execute("UPDATE push_tokens SET queued = queued - ?, dropped = dropped + ? WHERE token = ?", [excess, excess, token])
        return true
    }

    func dequeueNotification(token: String) throws -> DequeuedNotification? {
        if let dropped = try db.fetchOne(Int.self, "SELECT dropped FROM push_tokens WHERE token = ?", [token]), dropped > 0 {
            try db.execute("UPDATE push_tokens SET dropped = 0 WHERE token = ?", [token])
            return .resync(dropped: dropped)
        }
        let head = try db.fetchOne("SELECT id, payload FROM push_queue WHERE token = ? ORDER BY id LIMIT 1", [token]) { row in
            (id: try row[0] as Int64, payload: try row[1] as [UInt8])
        }
        guard let head else { return nil }
        try db.execute("DELETE FROM push_queue WHERE id = ?", [head.id])
        try db.execute("UPDATE push_tokens SET queued = queued - 1 WHERE token = ?", [token])
        return .notification(head.payload)
    }

    // MARK: Outbox

    private static let outboxColumns =
        "id, container, environment, scope, owner, zone_name, payload, created_at, cursor_subscriber, cursor_subscription"

    func pushOutbox(limit: Int) throws -> [PushOutboxEntry] {
        try db.fetchAll("SELECT \(Self.outboxColumns) FROM push_outbox ORDER BY id LIMIT ?", [limit]) { row in
            guard let entry = PushOutboxEntry(
                id: try row[0], container: try row[1], environment: try row[2], scope: try row[3], owner: try row[4], zoneName: try row[5],
                payload: try row[6], createdAt: try row[7], cursorSubscriber: try row[8], cursorSubscription: try row[9]
            ) else {
                throw SQLiteStoreCorruption(message: "push outbox entry \(try row[0] as Int64) has an unknown environment or scope")
            }
            return entry
        }
    }

    func appendPushOutbox(_ entry: NewPushOutboxEntry) throws {
        try db.execute(
            "INSERT INTO push_outbox (container, environment, scope, owner, zone_name, payload, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            SQLiteArguments(Self.databaseArguments(entry.database) + [entry.zoneName, entry.payload, entry.createdAt])
        )
    }

    func advancePushOutbox(id: Int64, from expected: SubscriptionKey?, to progress: PushOutboxProgress) throws -> Bool {
        let matches = "id = ? AND cursor_subscriber IS ? AND cursor_subscription IS ?"
        let expectedArguments: [(any SQLiteValueConvertible)?] = [id, expected?.subscriber, expected?.subscriptionID]
        switch progress {
        case .finished:
            try db.execute("DELETE FROM push_outbox WHERE \(matches)", SQLiteArguments(expectedArguments))
        case .handled(let key):
            try db.execute(
                "UPDATE push_outbox SET cursor_subscriber = ?, cursor_subscription = ? WHERE \(matches)",
                SQLiteArguments([key.subscriber, key.subscriptionID] + expectedArguments)
            )
        }
        return db.changes > 0
    }
}
