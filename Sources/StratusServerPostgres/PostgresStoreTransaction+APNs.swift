import StratusPostgres
import StratusServer
import StratusWire

/// APNs credentials, device tokens and the delivery queue on PostgreSQL, shared by every node.
extension PostgresStoreTransaction {
    private static let credentialColumns = "container, environment, key_id, team_id, topic, private_key, updated_at"

    private static func credentials(_ row: PostgresRow) throws -> APNsCredentials {
        let environment: String = try row[1]
        guard let value = Environment(rawValue: environment) else {
            throw PostgresStoreCorruption(message: "APNs credentials have environment '\(environment)'")
        }
        return APNsCredentials(
            container: try row[0], environment: value, keyID: try row[2], teamID: try row[3], topic: try row[4], privateKeyPEM: try row[5],
            updatedAt: try row[6]
        )
    }

    func apnsCredentials(container: String, environment: Environment) throws -> APNsCredentials? {
        try first(
            "SELECT \(Self.credentialColumns) FROM apns_credentials WHERE container = $1 AND environment = $2", [container, environment.rawValue]
        ).map(Self.credentials)
    }

    func allAPNsCredentials() throws -> [APNsCredentials] {
        try query("SELECT \(Self.credentialColumns) FROM apns_credentials ORDER BY container, environment").map(Self.credentials)
    }

    func putAPNsCredentials(_ credentials: APNsCredentials) throws {
        try execute(
            """
            INSERT INTO apns_credentials (\(Self.credentialColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT (container, environment) DO UPDATE SET key_id = excluded.key_id, team_id = excluded.team_id,
                topic = excluded.topic, private_key = excluded.private_key, updated_at = excluded.updated_at
            """,
            [
                credentials.container, credentials.environment.rawValue, credentials.keyID, credentials.teamID, credentials.topic,
                credentials.privateKeyPEM, credentials.updatedAt,
            ]
        )
    }

    func deleteAPNsCredentials(container: String, environment: Environment?) throws -> Int {
        if let environment {
            return try execute("DELETE FROM apns_credentials WHERE container = $1 AND environment = $2", [container, environment.rawValue])
        }
        return try execute("DELETE FROM apns_credentials WHERE container = $1", [container])
    }

    func apnsDeviceTokens(of user: String, container: String, environment: Environment) throws -> [APNsDeviceToken] {
        try query(
            """
            SELECT token, apns_environment, registered_at FROM apns_device_tokens
            WHERE container = $1 AND environment = $2 AND owner_name = $3 ORDER BY registered_at, token
            """,
            [container, environment.rawValue, user]
        ).map { row in
            APNsDeviceToken(
                token: try row[0], container: container, environment: environment, apnsEnvironment: APNsEnvironment(rawValue: try row[1]),
                owner: user, registeredAt: try row[2]
            )
        }
    }

    func registerAPNsDeviceToken(_ token: APNsDeviceToken, maximumPerUser: Int) throws -> Int {
        let key: [any PostgresBindable] = [token.container, token.environment.rawValue, token.apnsEnvironment.rawValue, token.token]
        let previous = try first(
            "SELECT owner_name FROM apns_device_tokens WHERE container = $1 AND environment = $2 AND apns_environment = $3 AND token = $4 FOR UPDATE",
            key
        )
        if let previous, try previous[0] as String != token.owner {
            // The device changed hands: what was queued for the previous user does not go to it.
            try execute("DELETE FROM apns_queue WHERE container = $1 AND environment = $2 AND apns_environment = $3 AND token = $4", key)
        }
        try execute(
            """
            INSERT INTO apns_device_tokens (container, environment, apns_environment, token, owner_name, registered_at)
            VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (container, environment, apns_environment, token)
            DO UPDATE SET owner_name = excluded.owner_name, registered_at = excluded.registered_at
            """,
            [token.container, token.environment.rawValue, token.apnsEnvironment.rawValue, token.token, token.owner, token.registeredAt]
        )
        let excess = try query(
            """
            SELECT apns_environment, token FROM apns_device_tokens WHERE container = $1 AND environment = $2 AND owner_name = $3
            ORDER BY registered_at DESC, token DESC OFFSET $4
            """,
            [token.container, token.environment.rawValue, token.owner, max(1, maximumPerUser)]
        ).map { row in (environment: try row[0] as String, token: try row[1] as String) }
        for old in excess {
            try removeDeviceToken(old.token, apnsEnvironment: old.environment, container: token.container, environment: token.environment)
        }
        return excess.count
    }

    func deleteAPNsDeviceToken(
        _ token: String, apnsEnvironment: APNsEnvironment, container: String, environment: Environment, invalidSince: Int64
    ) throws -> Bool {
        let removed = try execute(
            """
            DELETE FROM apns_device_tokens
            WHERE container = $1 AND environment = $2 AND apns_environment = $3 AND token = $4 AND registered_at <= $5
            """,
            [container, environment.rawValue, apnsEnvironment.rawValue, token, invalidSince]
        )
        guard removed > 0 else { return false }
        try execute(
            "DELETE FROM apns_queue WHERE token = $1 AND container = $2 AND environment = $3 AND apns_environment = $4",
            [token, container, environment.rawValue, apnsEnvironment.rawValue]
        )
        return true
    }

    /// Deletes a device token and the pushes queued for it.
    private func removeDeviceToken(_ token: String, apnsEnvironment: String, container: String, environment: Environment) throws {
        let key: [any PostgresBindable] = [container, environment.rawValue, apnsEnvironment, token]
        try execute("DELETE FROM apns_device_tokens WHERE container = $1 AND environment = $2 AND apns_environment = $3 AND token = $4", key)
        try execute("DELETE FROM apns_queue WHERE container = $1 AND environment = $2 AND apns_environment = $3 AND token = $4", key)
    }

    func enqueueAPNsPushes(_ pushes: [NewAPNsPush], maximumPerToken: Int, leasing: APNsLease?) throws -> APNsEnqueued {
        var ids: [Int64] = []
        for start in stride(from: 0, to: pushes.count, by: 200) {
            let chunk = pushes[start..<min(start + 200, pushes.count)]
            var parameters: [any PostgresBindable] = []
            let rows = chunk.indices.map { index -> String in
                let push = pushes[index]
                let leased = leasing.map { index < $0.limit } ?? false
                let first = parameters.count
                parameters += [
                    push.container, push.environment.rawValue, push.apnsEnvironment.rawValue, push.token, push.payload, push.pushType.rawValue,
                    push.createdAt, leased ? 1 : 0, leased ? leasing?.until ?? 0 : 0,
                ]
                return "(" + (1...9).map { "$\(first + $0)" }.joined(separator: ", ") + ")"
            }
            // Identity values follow the order of the VALUES rows, so the sorted ids pair with the pushes.
            ids += try query(
                "INSERT INTO apns_queue (container, environment, apns_environment, token, payload, push_type, created_at, attempts, lease_until) VALUES "
                    + rows.joined(separator: ", ") + " RETURNING id",
                parameters
            ).map { try $0[0] as Int64 }.sorted()
        }
        var dropped: Set<Int64> = []
        for token in Set(pushes.map(\.token)).sorted() {
            dropped.formUnion(
                try query(
                    "DELETE FROM apns_queue WHERE id IN (SELECT id FROM apns_queue WHERE token = $1 ORDER BY id DESC OFFSET $2) RETURNING id",
                    [token, max(1, maximumPerToken)]
                ).map { try $0[0] as Int64 }
            )
        }
        return APNsEnqueued(inserted: ids, pushes: pushes, dropped: dropped, leasing: leasing)
    }

    /// Rows another node is claiming right now are skipped (`SKIP LOCKED`), never waited for, and
    /// the lease keeps them from every other node until the sender settles them or the lease passes.
    func claimAPNsPushes(limit: Int, now: Int64, leaseUntil: Int64) throws -> [APNsPush] {
        try query(
            """
            UPDATE apns_queue SET lease_until = $1, attempts = attempts + 1
            WHERE id IN (
                SELECT id FROM apns_queue WHERE not_before <= $2 AND lease_until <= $2 ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED
            )
            RETURNING id, container, environment, apns_environment, token, payload, push_type, created_at, attempts
            """,
            [leaseUntil, now, limit]
        ).map { row in
            let environment: String = try row[2]
            let type: String = try row[6]
            guard let environmentValue = Environment(rawValue: environment), let pushType = APNsPushType(rawValue: type) else {
                throw PostgresStoreCorruption(message: "APNs queue row \(try row[0] as Int64) has environment '\(environment)', type '\(type)'")
            }
            let push = NewAPNsPush(
                token: try row[4], container: try row[1], environment: environmentValue, apnsEnvironment: APNsEnvironment(rawValue: try row[3]),
                payload: try row[5], pushType: pushType, createdAt: try row[7]
            )
            return APNsPush(id: try row[0], push: push, attempts: try row[8])
        }.sorted { $0.id < $1.id }
    }

    func finishAPNsPushes(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        for start in stride(from: 0, to: ids.count, by: 500) {
            let chunk = ids[start..<min(start + 500, ids.count)]
            let placeholders = chunk.indices.map { "$\($0 - start + 1)" }.joined(separator: ", ")
            try execute("DELETE FROM apns_queue WHERE id IN (\(placeholders))", chunk.map { $0 as any PostgresBindable })
        }
    }

    func deferAPNsPush(_ id: Int64, notBefore: Int64) throws {
        try execute("UPDATE apns_queue SET not_before = $1, lease_until = 0 WHERE id = $2", [notBefore, id])
    }
}
