public import StratusServer
import StratusSQL
public import StratusWire

/// APNs credentials, device tokens and the delivery queue (design note 0013), for either back end.
///
/// On PostgreSQL, every node claims from the one queue: rows another node is claiming right now
/// are skipped (`FOR UPDATE SKIP LOCKED`), never waited for, and the lease keeps them from every
/// other node until the sender settles them or the lease passes.
public protocol SQLAPNsStore: SQLStoreTransaction, APNsStoreWriter {}

extension SQLAPNsStore {
    private static var credentialColumns: SQL { "container, environment, key_id, team_id, topic, private_key, updated_at" }

    /// The device tokens' owner column: `owner` on SQLite, `owner_name` on PostgreSQL.
    private var ownerColumn: SQL { column(sqlite: "owner", postgres: "owner_name") }

    private func credentials(_ row: any SQLRow) throws -> APNsCredentials {
        let environment: String = try row[1]
        guard let value = Environment(rawValue: environment) else {
            throw corruption("APNs credentials have environment '\(environment)'")
        }
        return APNsCredentials(
            container: try row[0], environment: value, keyID: try row[2], teamID: try row[3], topic: try row[4], privateKeyPEM: try row[5],
            updatedAt: try row[6]
        )
    }

    /// The credentials of a container environment.
    public func apnsCredentials(container: String, environment: Environment) throws -> APNsCredentials? {
        try executor.fetchOne(
            literal: "SELECT \(Self.credentialColumns) FROM apns_credentials WHERE container = \(container) AND environment = \(environment.rawValue)",
            credentials
        )
    }

    /// Every container environment's credentials.
    public func allAPNsCredentials() throws -> [APNsCredentials] {
        try executor.fetchAll(literal: "SELECT \(Self.credentialColumns) FROM apns_credentials ORDER BY container, environment", credentials)
    }

    /// Stores (or replaces) a container environment's credentials.
    public func putAPNsCredentials(_ credentials: APNsCredentials) throws {
        try executor.execute(
            literal: """
                INSERT INTO apns_credentials (\(Self.credentialColumns))
                VALUES (\(credentials.container), \(credentials.environment.rawValue), \(credentials.keyID), \(credentials.teamID),
                    \(credentials.topic), \(credentials.privateKeyPEM), \(credentials.updatedAt))
                ON CONFLICT (container, environment) DO UPDATE SET key_id = excluded.key_id, team_id = excluded.team_id,
                    topic = excluded.topic, private_key = excluded.private_key, updated_at = excluded.updated_at
                """
        )
    }

    /// Deletes a container's credentials (of one environment, or all); returns how many.
    public func deleteAPNsCredentials(container: String, environment: Environment?) throws -> Int {
        let filter: SQL = environment.map { "container = \(container) AND environment = \($0.rawValue)" } ?? "container = \(container)"
        return try executor.execute(literal: "DELETE FROM apns_credentials WHERE \(filter)")
    }

    /// A user's device tokens in a container environment, oldest registration first.
    public func apnsDeviceTokens(of user: String, container: String, environment: Environment) throws -> [APNsDeviceToken] {
        try executor.fetchAll(
            literal: """
                SELECT token, apns_environment, registered_at FROM apns_device_tokens
                WHERE container = \(container) AND environment = \(environment.rawValue) AND \(ownerColumn) = \(user) ORDER BY registered_at, token
                """
        ) { row in
            APNsDeviceToken(
                token: try row[0], container: container, environment: environment, apnsEnvironment: APNsEnvironment(rawValue: try row[1]),
                owner: user, registeredAt: try row[2]
            )
        }
    }

    private func tokenKey(container: String, environment: Environment, apnsEnvironment: String, token: String) -> SQL {
        "container = \(container) AND environment = \(environment.rawValue) AND apns_environment = \(apnsEnvironment) AND token = \(token)"
    }

    /// Registers (or moves to a new owner) a device token; drops the owner's oldest tokens past `maximumPerUser`.
    public func registerAPNsDeviceToken(_ token: APNsDeviceToken, maximumPerUser: Int) throws -> Int {
        let key = tokenKey(container: token.container, environment: token.environment, apnsEnvironment: token.apnsEnvironment.rawValue, token: token.token)
        let previous = try executor.fetchOne(String.self, literal: "SELECT \(ownerColumn) FROM apns_device_tokens WHERE \(key)\(forUpdate)")
        if let previous, previous != token.owner {
            // The device changed hands: what was queued for the previous user does not go to it.
            try executor.execute(literal: "DELETE FROM apns_queue WHERE \(key)")
        }
        try executor.execute(
            literal: """
                INSERT INTO apns_device_tokens (container, environment, apns_environment, token, \(ownerColumn), registered_at)
                VALUES (\(token.container), \(token.environment.rawValue), \(token.apnsEnvironment.rawValue), \(token.token), \(token.owner),
                    \(token.registeredAt))
                ON CONFLICT (container, environment, apns_environment, token)
                DO UPDATE SET \(ownerColumn) = excluded.\(ownerColumn), registered_at = excluded.registered_at
                """
        )
        let excess = try executor.fetchAll(
            literal: """
                SELECT apns_environment, token FROM apns_device_tokens
                WHERE container = \(token.container) AND environment = \(token.environment.rawValue) AND \(ownerColumn) = \(token.owner)
                ORDER BY registered_at DESC, token DESC \(offset(max(1, maximumPerUser)))
                """
        ) { row in (environment: try row[0] as String, token: try row[1] as String) }
        for old in excess {
            let oldKey = tokenKey(container: token.container, environment: token.environment, apnsEnvironment: old.environment, token: old.token)
            try executor.execute(literal: "DELETE FROM apns_device_tokens WHERE \(oldKey)")
            try executor.execute(literal: "DELETE FROM apns_queue WHERE \(oldKey)")
        }
        return excess.count
    }

    /// Deletes a device token APNs reported invalid, unless it was registered again since; and its queued pushes.
    public func deleteAPNsDeviceToken(
        _ token: String, apnsEnvironment: APNsEnvironment, container: String, environment: Environment, invalidSince: Int64
    ) throws -> Bool {
        let key = tokenKey(container: container, environment: environment, apnsEnvironment: apnsEnvironment.rawValue, token: token)
        guard try executor.execute(literal: "DELETE FROM apns_device_tokens WHERE \(key) AND registered_at <= \(invalidSince)") > 0 else {
            return false
        }
        try executor.execute(literal: "DELETE FROM apns_queue WHERE \(key)")
        return true
    }

    /// Queues pushes (the first `leasing.limit` already leased to this sender); drops a token's
    /// oldest past `maximumPerToken`.
    public func enqueueAPNsPushes(_ pushes: [NewAPNsPush], maximumPerToken: Int, leasing: APNsLease?) throws -> APNsEnqueued {
        var ids: [Int64] = []
        for start in stride(from: 0, to: pushes.count, by: 200) {
            let rows: SQL = (start..<min(start + 200, pushes.count)).map { index -> SQL in
                let push = pushes[index]
                let leased = leasing.map { index < $0.limit } ?? false
                return """
                    (\(push.container), \(push.environment.rawValue), \(push.apnsEnvironment.rawValue), \(push.token), \(push.payload),
                     \(push.pushType.rawValue), \(push.createdAt), \(leased ? 1 : 0), \(leased ? leasing?.until ?? 0 : 0))
                    """
            }.joined(separator: ", ")
            // Keys are handed out in the order of the VALUES rows, so the sorted ids pair with the pushes.
            ids += try executor.fetchAll(
                Int64.self,
                literal: """
                    INSERT INTO apns_queue (container, environment, apns_environment, token, payload, push_type, created_at, attempts, lease_until)
                    VALUES \(rows) RETURNING id
                    """
            ).sorted()
        }
        var dropped: Set<Int64> = []
        for token in Set(pushes.map(\.token)).sorted() {
            dropped.formUnion(
                try executor.fetchAll(
                    Int64.self,
                    literal: """
                        DELETE FROM apns_queue WHERE id IN (SELECT id FROM apns_queue WHERE token = \(token) ORDER BY id DESC \(offset(max(1, maximumPerToken))))
                        RETURNING id
                        """
                )
            )
        }
        return APNsEnqueued(inserted: ids, pushes: pushes, dropped: dropped, leasing: leasing)
    }

    /// Leases up to `limit` due pushes to this sender until `leaseUntil`, oldest first.
    public func claimAPNsPushes(limit: Int, now: Int64, leaseUntil: Int64) throws -> [APNsPush] {
        try executor.fetchAll(
            literal: """
                UPDATE apns_queue SET lease_until = \(leaseUntil), attempts = attempts + 1
                WHERE id IN (
                    SELECT id FROM apns_queue WHERE not_before <= \(now) AND lease_until <= \(now) ORDER BY id LIMIT \(limit)\(skippingLocked)
                )
                RETURNING id, container, environment, apns_environment, token, payload, push_type, created_at, attempts
                """
        ) { row in
            let environment: String = try row[2]
            let type: String = try row[6]
            guard let environmentValue = Environment(rawValue: environment), let pushType = APNsPushType(rawValue: type) else {
                throw corruption("APNs queue row \(try row[0] as Int64) has environment '\(environment)', type '\(type)'")
            }
            let push = NewAPNsPush(
                token: try row[4], container: try row[1], environment: environmentValue, apnsEnvironment: APNsEnvironment(rawValue: try row[3]),
                payload: try row[5], pushType: pushType, createdAt: try row[7]
            )
            return APNsPush(id: try row[0], push: push, attempts: try row[8])
        }.sorted { $0.id < $1.id }
    }

    /// Deletes pushes APNs answered.
    public func finishAPNsPushes(_ ids: [Int64]) throws {
        for start in stride(from: 0, to: ids.count, by: 500) {
            let list: SQL = ids[start..<min(start + 500, ids.count)].map { id -> SQL in "\(id)" }.joined(separator: ", ")
            try executor.execute(literal: "DELETE FROM apns_queue WHERE id IN (\(list))")
        }
    }

    /// Ends a push's lease and holds it back until `notBefore`.
    public func deferAPNsPush(_ id: Int64, notBefore: Int64) throws {
        try executor.execute(literal: "UPDATE apns_queue SET not_before = \(notBefore), lease_until = 0 WHERE id = \(id)")
    }
}
