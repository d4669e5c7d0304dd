import Foundation
import StratusServer
import StratusSQLite
import StratusWire

/// Subscriptions and the web courier queues on SQLite.
extension SQLiteStoreTransaction {
    // MARK: Subscriptions

    private static func databaseArguments(_ database: DatabaseKey) -> [any SQLiteValueConvertible] {
        [database.container, database.environment.rawValue, database.scope.rawValue, database.owner]
    }

    private static func subscription(_ database: DatabaseKey) -> (SQLiteRow) throws -> StoredSubscription {
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

    func subscriptions(in database: DatabaseKey) throws -> [StoredSubscription] {
        try db.fetchAll(
            """
            SELECT subscriber, body, created_at FROM subscriptions
            WHERE container = ? AND environment = ? AND scope = ? AND owner = ? ORDER BY created_at, subscriber, subscription_id
            """,
            SQLiteArguments(Self.databaseArguments(database)), Self.subscription(database)
        )
    }

    func putSubscription(_ stored: StoredSubscription) throws {
        let body = try WireCoding.encode(stored.subscription)
        try db.execute(
            """
            INSERT OR REPLACE INTO subscriptions (container, environment, scope, owner, subscriber, subscription_id, body, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """,
            SQLiteArguments(
                Self.databaseArguments(stored.database) + [stored.subscriber, stored.subscription.subscriptionID, body, stored.createdAt]
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

    private static let tokenColumns = "token, container, environment, apns_environment, user, created_at, expires_at"

    func pushToken(_ token: String) throws -> PushTokenRow? {
        try db.fetchOne("SELECT \(Self.tokenColumns) FROM push_tokens WHERE token = ?", [token]) { row in
            let environment: String = try row[2]
            guard let environmentValue = Environment(rawValue: environment) else {
                throw SQLiteStoreCorruption(message: "push token has environment '\(environment)'")
            }
            return PushTokenRow(
                token: try row[0], container: try row[1], environment: environmentValue, apnsEnvironment: try row[3],
                user: try row[4], createdAt: try row[5], expiresAt: try row[6]
            )
        }
    }

    func createPushToken(_ token: PushTokenRow) throws {
        try db.execute(
            "INSERT INTO push_tokens (\(Self.tokenColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                token.token, token.container, token.environment.rawValue, token.apnsEnvironment, token.user, token.createdAt,
                token.expiresAt,
            ]
        )
    }

    func bindPushToken(_ token: String, to user: String, now: Int64) throws -> Bool {
        try db.execute("UPDATE push_tokens SET user = ? WHERE token = ? AND expires_at > ?", [user, token, now])
        return db.changes > 0
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

    func enqueueNotification(_ payload: [UInt8], token: String, maximumBacklog: Int) throws {
        try db.execute("INSERT INTO push_queue (token, payload) VALUES (?, ?)", [token, payload])
        guard let queued = try db.fetchOne(
            Int.self, "UPDATE push_tokens SET queued = queued + 1 WHERE token = ? RETURNING queued", [token]
        ) else {
            throw SQLiteStoreCorruption(message: "a notification was queued for a token with no row")
        }
        let excess = queued - max(1, maximumBacklog)
        guard excess > 0 else { return }
        try db.execute(
            "DELETE FROM push_queue WHERE id IN (SELECT id FROM push_queue WHERE token = ? ORDER BY id LIMIT ?)", [token, excess]
        )
        try db.execute("UPDATE push_tokens SET queued = queued - ?, dropped = dropped + ? WHERE token = ?", [excess, excess, token])
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
}
