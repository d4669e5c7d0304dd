import Foundation
public import StratusServer
public import StratusSQL
public import StratusWire

/// Subscriptions, the web courier's tokens and queues, and the push outbox, for either back end.
///
/// The token columns `user` and `owner` are `user_name` and `owner_name` on PostgreSQL (where
/// `user` is reserved). A back end announces queued notifications its own way
/// (``announceQueued(token:)``): PostgreSQL with `NOTIFY` at commit, to every node.
public protocol SQLPushStore: SQLStoreTransaction, PushStoreWriter {
    /// Tells the nodes that serve web courier polls that `token` has notifications, once this
    /// transaction commits.
    ///
    /// - Parameter token: The courier token.
    /// - Throws: The driver's error.
    func announceQueued(token: String) throws
}

extension SQLPushStore {
    private var userColumn: SQL { column(sqlite: "user", postgres: "user_name") }
    private var ownerColumn: SQL { column(sqlite: "owner", postgres: "owner_name") }

    static func inDatabase(_ database: DatabaseKey) -> SQL {
        """
        container = \(database.container) AND environment = \(database.environment.rawValue) AND scope = \(database.scope.rawValue) \
        AND owner = \(database.owner)
        """
    }

    /// Reads a subscription row (subscriber, body, created at) of `database`, as ``subscriptionCandidates(in:zoneName:recordTypes:after:limit:)`` selects it.
    ///
    /// - Parameter database: The database the rows belong to.
    /// - Returns: The row reader; it throws when the body does not decode.
    public static func subscription(_ database: DatabaseKey) -> (any SQLRow) throws -> StoredSubscription {
        { row in
            let body: Data = try row[1]
            return StoredSubscription(
                database: database, subscriber: try row[0], subscription: try WireCoding.decode(Subscription.self, from: body),
                createdAt: try row[2]
            )
        }
    }

    // MARK: Subscriptions

    /// A subscriber's subscriptions in a database, by ID.
    public func subscriptions(in database: DatabaseKey, subscriber: String) throws -> [StoredSubscription] {
        try executor.fetchAll(
            literal: """
                SELECT subscriber, body, created_at FROM subscriptions
                WHERE \(Self.inDatabase(database)) AND subscriber = \(subscriber) ORDER BY subscription_id
                """,
            Self.subscription(database)
        )
    }

    /// The subscriptions that may match a change of `recordTypes` in a zone, in fan-out order after `cursor`.
    public func subscriptionCandidates(
        in database: DatabaseKey, zoneName: String, recordTypes: Set<String>, after cursor: SubscriptionKey?, limit: Int
    ) throws -> [StoredSubscription] {
        let statement = SQLPushStatements.candidates(
            in: database, zoneName: zoneName, recordTypes: recordTypes, after: cursor, limit: limit, dialect: executor.dialect
        )
        return try executor.fetchAll(literal: statement, Self.subscription(database))
    }

    /// Whether a subscription watches `recordType` changes in `zoneName` (``existsSubscription(watching:in:zoneName:)``).
    public func hasSubscription(watching recordType: String, in database: DatabaseKey, zoneName: String) throws -> Bool {
        try existsSubscription(watching: recordType, in: database, zoneName: zoneName)
    }

    /// Whether a subscription watches `recordType` changes in `zoneName`, read now: three probes of
    /// `subscriptions_by_watch`, the watches ``SubscriptionWatch/covering(recordTypes:zoneName:)`` lists.
    public func existsSubscription(watching recordType: String, in database: DatabaseKey, zoneName: String) throws -> Bool {
        let index: SQL = executor.dialect == .sqlite ? " INDEXED BY subscriptions_by_watch" : ""
        let watching = "SELECT 1 FROM subscriptions\(index) WHERE \(Self.inDatabase(database)) AND" as SQL
        let found = try executor.fetchOne(
            Int.self,
            literal: """
                SELECT CASE WHEN EXISTS (\(watching) record_type = \(recordType) AND zone_name = \(zoneName))
                    OR EXISTS (\(watching) record_type = \(recordType) AND zone_name IS NULL)
                    OR EXISTS (\(watching) record_type IS NULL AND zone_name = \(zoneName)) THEN 1 ELSE 0 END
                """
        )
        return found == 1
    }

    /// Inserts or replaces a subscription, with the record type and zone it watches.
    public func putSubscription(_ stored: StoredSubscription) throws {
        let watch = stored.watch
        let database = stored.database
        try executor.execute(
            literal: """
                INSERT INTO subscriptions (container, environment, scope, owner, subscriber, subscription_id, body, created_at, record_type, zone_name)
                VALUES (\(database.container), \(database.environment.rawValue), \(database.scope.rawValue), \(database.owner), \(stored.subscriber),
                    \(stored.subscription.subscriptionID), \(try WireCoding.encode(stored.subscription)), \(stored.createdAt), \(watch.recordType),
                    \(watch.zoneName))
                ON CONFLICT (container, environment, scope, owner, subscriber, subscription_id)
                DO UPDATE SET body = excluded.body, created_at = excluded.created_at, record_type = excluded.record_type,
                    zone_name = excluded.zone_name
                """
        )
    }

    /// Deletes a subscription; `false` if there was none.
    public func deleteSubscription(id: String, in database: DatabaseKey, subscriber: String) throws -> Bool {
        try executor.execute(
            literal: "DELETE FROM subscriptions WHERE \(Self.inDatabase(database)) AND subscriber = \(subscriber) AND subscription_id = \(id)"
        ) > 0
    }

    // MARK: Tokens

    private var tokenColumns: SQL {
        "token, container, environment, apns_environment, \(userColumn), created_at, expires_at, \(ownerColumn)"
    }

    /// The courier token row.
    public func pushToken(_ token: String) throws -> PushTokenRow? {
        try executor.fetchOne(literal: "SELECT \(tokenColumns) FROM push_tokens WHERE token = \(token)") { row in
            let environment: String = try row[2]
            guard let environmentValue = Environment(rawValue: environment) else {
                throw corruption("push token has environment '\(environment)'")
            }
            return PushTokenRow(
                token: try row[0], container: try row[1], environment: environmentValue, apnsEnvironment: try row[3],
                user: try row[4], owner: try row[7], createdAt: try row[5], expiresAt: try row[6]
            )
        }
    }

    /// Creates a courier token.
    public func createPushToken(_ token: PushTokenRow) throws {
        try executor.execute(
            literal: """
                INSERT INTO push_tokens (\(tokenColumns))
                VALUES (\(token.token), \(token.container), \(token.environment.rawValue), \(token.apnsEnvironment), \(token.user),
                    \(token.createdAt), \(token.expiresAt), \(token.owner))
                """
        )
    }

    /// Binds a live token to `user`, if the user owns it (or, for an older token without an owner, is bound to it).
    public func bindPushToken(_ token: String, to user: String, container: String, environment: Environment, now: Int64) throws -> Bool {
        try executor.execute(
            literal: """
                UPDATE push_tokens SET \(userColumn) = \(user)
                WHERE token = \(token) AND container = \(container) AND environment = \(environment.rawValue) AND expires_at > \(now)
                  AND (\(ownerColumn) = \(user) OR (\(ownerColumn) IS NULL AND \(userColumn) = \(user)))
                """
        ) > 0
    }

    /// How many live tokens `owner` created.
    public func pushTokenCount(ownedBy owner: String, container: String, environment: Environment, now: Int64) throws -> Int {
        try executor.fetchOne(
            Int.self,
            literal: """
                SELECT count(*) FROM push_tokens
                WHERE container = \(container) AND environment = \(environment.rawValue) AND \(ownerColumn) = \(owner) AND expires_at > \(now)
                """
        ) ?? 0
    }

    /// Deletes expired tokens and their queues; returns how many tokens.
    public func deleteExpiredPushTokens(now: Int64) throws -> Int {
        try executor.execute(literal: "DELETE FROM push_queue WHERE token IN (SELECT token FROM push_tokens WHERE expires_at <= \(now))")
        return try executor.execute(literal: "DELETE FROM push_tokens WHERE expires_at <= \(now)")
    }

    /// The live tokens bound to `user`, sorted.
    public func pushTokens(of user: String, container: String, environment: Environment, now: Int64) throws -> [String] {
        try executor.fetchAll(
            String.self,
            literal: """
                SELECT token FROM push_tokens
                WHERE container = \(container) AND environment = \(environment.rawValue) AND \(userColumn) = \(user) AND expires_at > \(now)
                ORDER BY token
                """
        )
    }

    // MARK: Queues

    /// Appends payloads to a token's queue, dropping the oldest past `maximumBacklog` (counted, so a resync is owed).
    public func enqueueNotifications(_ payloads: [[UInt8]], token: String, maximumBacklog: Int) throws -> Bool {
        let backlog = max(1, maximumBacklog)
        // Payloads past the backlog would be dropped at once: count them without writing them.
        let kept = Array(payloads.suffix(backlog))
        // On PostgreSQL the token row's lock (taken by this UPDATE) serializes queue changes of one token across nodes.
        guard
            let queued = try executor.fetchOne(
                Int.self,
                literal: """
                    UPDATE push_tokens SET queued = queued + \(kept.count), dropped = dropped + \(payloads.count - kept.count)
                    WHERE token = \(token) RETURNING queued
                    """
            )
        else { return false }
        // Queued on PostgreSQL: they go out with the next statement or the COMMIT, and fail the write if they fail.
        for start in stride(from: 0, to: kept.count, by: 500) {
            let rows: SQL = kept[start..<min(start + 500, kept.count)].map { payload -> SQL in "(\(token), \(payload))" }.joined(separator: ", ")
            try executor.enqueue(literal: "INSERT INTO push_queue (token, payload) VALUES \(rows)")
        }
        try announceQueued(token: token)
        let excess = queued - backlog
        guard excess > 0 else { return true }
        try executor.execute(
            literal: """
                DELETE FROM push_queue WHERE token = \(token) AND id IN (SELECT id FROM push_queue WHERE token = \(token) ORDER BY id LIMIT \(excess))
                """
        )
        try executor.execute(literal: "UPDATE push_tokens SET queued = queued - \(excess), dropped = dropped + \(excess) WHERE token = \(token)")
        return true
    }

    /// Takes the oldest notification of a token's queue, or a resync marker when some were dropped.
    public func dequeueNotification(token: String) throws -> DequeuedNotification? {
        guard let dropped = try executor.fetchOne(Int.self, literal: "SELECT dropped FROM push_tokens WHERE token = \(token)\(forUpdate)") else {
            return nil
        }
        if dropped > 0 {
            try executor.execute(literal: "UPDATE push_tokens SET dropped = 0 WHERE token = \(token)")
            return .resync(dropped: dropped)
        }
        guard
            let payload = try executor.fetchOne(
                [UInt8].self,
                literal: """
                    DELETE FROM push_queue WHERE token = \(token) AND id = (SELECT id FROM push_queue WHERE token = \(token) ORDER BY id LIMIT 1)
                    RETURNING payload
                    """
            )
        else { return nil }
        try executor.execute(literal: "UPDATE push_tokens SET queued = queued - 1 WHERE token = \(token)")
        return .notification(payload)
    }

    // MARK: Outbox

    private static var outboxColumns: SQL {
        "id, container, environment, scope, owner, zone_name, payload, created_at, cursor_subscriber, cursor_subscription"
    }

    /// The oldest outbox entries.
    public func pushOutbox(limit: Int) throws -> [PushOutboxEntry] {
        try executor.fetchAll(literal: "SELECT \(Self.outboxColumns) FROM push_outbox ORDER BY id LIMIT \(limit)") { row in
            guard
                let entry = PushOutboxEntry(
                    id: try row[0], container: try row[1], environment: try row[2], scope: try row[3], owner: try row[4], zoneName: try row[5],
                    payload: try row[6], createdAt: try row[7], cursorSubscriber: try row[8], cursorSubscription: try row[9]
                )
            else {
                throw corruption("push outbox entry \(try row[0] as Int64) has an unknown environment or scope")
            }
            return entry
        }
    }

    /// Appends a committed change to fan out.
    public func appendPushOutbox(_ entry: NewPushOutboxEntry) throws {
        try executor.execute(literal: SQLPushStatements.outboxInsert(entry))
    }

    /// A compare-and-set of an entry's cursor (on PostgreSQL under the entry's row lock: a node that
    /// planned the same step waits for the first one's commit, then finds the cursor moved or the row gone).
    public func advancePushOutbox(id: Int64, from expected: SubscriptionKey?, to progress: PushOutboxProgress) throws -> Bool {
        let matches: SQL = """
            id = \(id) AND cursor_subscriber IS NOT DISTINCT FROM \(expected?.subscriber) \
            AND cursor_subscription IS NOT DISTINCT FROM \(expected?.subscriptionID)
            """
        switch progress {
        case .finished:
            return try executor.execute(literal: "DELETE FROM push_outbox WHERE \(matches)") > 0
        case .handled(let key):
            return try executor.execute(
                literal: "UPDATE push_outbox SET cursor_subscriber = \(key.subscriber), cursor_subscription = \(key.subscriptionID) WHERE \(matches)"
            ) > 0
        }
    }
}

/// The push statements a test (or a query plan) reads as they are run.
public enum SQLPushStatements {
    /// Appends a push outbox entry (``SQLPushStore/appendPushOutbox(_:)``; PostgreSQL queues it to go
    /// out with the write's next statement).
    public static func outboxInsert(_ entry: NewPushOutboxEntry) -> SQL {
        let database = entry.database
        return """
            INSERT INTO push_outbox (container, environment, scope, owner, zone_name, payload, created_at)
            VALUES (\(database.container), \(database.environment.rawValue), \(database.scope.rawValue), \(database.owner), \(entry.zoneName),
                \(entry.payload), \(entry.createdAt))
            """
    }

    /// The candidate query: one probe of `subscriptions_by_watch` per watch that covers the change
    /// (an ordered range scan after the cursor, at most `limit` rows), merged and cut to `limit` again.
    ///
    /// SQLite is told the index (`INDEXED BY`): without statistics it would rather walk the primary key.
    /// PostgreSQL has no such hint, and with statistics older than a bulk insert it walked the
    /// primary key too, filtering every subscription of the database (2 ms for 10,000 of them):
    /// each arm orders by the index's own columns — the leading six are fixed by the `WHERE`, so
    /// the order is the same — which the watch index gives without a sort and the primary key cannot.
    ///
    /// - Returns: The statement.
    public static func candidates(
        in database: DatabaseKey, zoneName: String, recordTypes: Set<String>, after cursor: SubscriptionKey?, limit: Int, dialect: SQLDialect
    ) -> SQL {
        let index: SQL = dialect == .sqlite ? " INDEXED BY subscriptions_by_watch" : ""
        let after: SQL = cursor.map { " AND (subscriber, subscription_id) > (\($0.subscriber), \($0.subscriptionID))" } ?? ""
        let arms: SQL = SubscriptionWatch.covering(recordTypes: recordTypes, zoneName: zoneName).map { watch -> SQL in
            let type: SQL = watch.recordType.map { "record_type = \($0)" } ?? "record_type IS NULL"
            let zone: SQL = watch.zoneName.map { "zone_name = \($0)" } ?? "zone_name IS NULL"
            return """
                SELECT * FROM (SELECT subscriber, subscription_id, body, created_at FROM subscriptions\(index)
                 WHERE container = \(database.container) AND environment = \(database.environment.rawValue) AND scope = \(database.scope.rawValue)
                 AND owner = \(database.owner) AND \(type) AND \(zone)\(after)
                 ORDER BY container, environment, scope, owner, record_type, zone_name, subscriber, subscription_id LIMIT \(limit)) AS arm
                """
        }.joined(separator: " UNION ALL ")
        return "SELECT subscriber, body, created_at FROM (\(arms)) AS candidates ORDER BY subscriber, subscription_id LIMIT \(limit)"
    }
}
