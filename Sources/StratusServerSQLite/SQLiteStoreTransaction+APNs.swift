import StratusServer
import StratusSQLite
import StratusWire

/// APNs credentials, device tokens and the delivery queue on SQLite.
extension SQLiteStoreTransaction {
    private static let credentialColumns = "container, environment, key_id, team_id, topic, private_key, updated_at"

    private static func credentials(_ row: SQLiteRow) throws -> APNsCredentials {
        let environment: String = try row[1]
        guard let value = Environment(rawValue: environment) else {
            throw SQLiteStoreCorruption(message: "APNs credentials have environment '\(environment)'")
        }
        return APNsCredentials(
            container: try row[0], environment: value, keyID: try row[2], teamID: try row[3], topic: try row[4], privateKeyPEM: try row[5],
            updatedAt: try row[6]
        )
    }

    func apnsCredentials(container: String, environment: Environment) throws -> APNsCredentials? {
        try db.fetchOne(
            "SELECT \(Self.credentialColumns) FROM apns_credentials WHERE container = ? AND environment = ?", [container, environment.rawValue],
            Self.credentials
        )
    }

    func allAPNsCredentials() throws -> [APNsCredentials] {
        try db.fetchAll("SELECT \(Self.credentialColumns) FROM apns_credentials ORDER BY container, environment", [], Self.credentials)
    }

    func putAPNsCredentials(_ credentials: APNsCredentials) throws {
        try db.execute(
            "INSERT OR REPLACE INTO apns_credentials (\(Self.credentialColumns)) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                credentials.container, credentials.environment.rawValue, credentials.keyID, credentials.teamID, credentials.topic,
                credentials.privateKeyPEM, credentials.updatedAt,
            ]
        )
    }

    func deleteAPNsCredentials(container: String, environment: Environment?) throws -> Int {
        if let environment {
            try db.execute("DELETE FROM apns_credentials WHERE container = ? AND environment = ?", [container, environment.rawValue])
        } else {
            try db.execute("DELETE FROM apns_credentials WHERE container = ?", [container])
        }
        return db.changes
    }

    func apnsDeviceTokens(of user: String, container: String, environment: Environment) throws -> [APNsDeviceToken] {
        try db.fetchAll(
            """
            SELECT token, apns_environment, registered_at FROM apns_device_tokens
            WHERE container = ? AND environment = ? AND owner = ? ORDER BY registered_at, token
            """,
            [container, environment.rawValue, user]
        ) { row in
            APNsDeviceToken(
                token: try row[0], container: container, environment: environment, apnsEnvironment: APNsEnvironment(rawValue: try row[1]),
                owner: user, registeredAt: try row[2]
            )
        }
    }

    func registerAPNsDeviceToken(_ token: APNsDeviceToken, maximumPerUser: Int) throws -> Int {
        let place: [any SQLiteValueConvertible] = [token.container, token.environment.rawValue]
        let key = SQLiteArguments(place + [token.apnsEnvironment.rawValue, token.token])
        let previous = try db.fetchOne(
            String.self, "SELECT owner FROM apns_device_tokens WHERE container = ? AND environment = ? AND apns_environment = ? AND token = ?", key
        )
        if let previous, previous != token.owner {
            // The device changed hands: what was queued for the previous user does not go to it.
            try db.execute("DELETE FROM apns_queue WHERE container = ? AND environment = ? AND apns_environment = ? AND token = ?", key)
        }
        try db.execute(
            """
            INSERT INTO apns_device_tokens (container, environment, apns_environment, token, owner, registered_at) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (container, environment, apns_environment, token) DO UPDATE SET owner = excluded.owner, registered_at = excluded.registered_at
            """,
            SQLiteArguments(place + [token.apnsEnvironment.rawValue, token.token, token.owner, token.registeredAt])
        )
        let excess = try db.fetchAll(
            """
            SELECT apns_environment, token FROM apns_device_tokens WHERE container = ? AND environment = ? AND owner = ?
            ORDER BY registered_at DESC, token DESC LIMIT -1 OFFSET ?
            """,
            SQLiteArguments(place + [token.owner, max(1, maximumPerUser)])
        ) { row in (environment: try row[0] as String, token: try row[1] as String) }
        for old in excess {
            try removeDeviceToken(old.token, apnsEnvironment: old.environment, container: token.container, environment: token.environment)
        }
        return excess.count
    }

    func deleteAPNsDeviceToken(
        _ token: String, apnsEnvironment: APNsEnvironment, container: String, environment: Environment, invalidSince: Int64
    ) throws -> Bool {
        guard let registered = try db.fetchOne(
            Int64.self,
            "SELECT registered_at FROM apns_device_tokens WHERE container = ? AND environment = ? AND apns_environment = ? AND token = ?",
            [container, environment.rawValue, apnsEnvironment.rawValue, token]
        ), registered <= invalidSince else { return false }
        try removeDeviceToken(token, apnsEnvironment: apnsEnvironment.rawValue, container: container, environment: environment)
        return true
    }

    /// Deletes a device token and the pushes queued for it.
    private func removeDeviceToken(_ token: String, apnsEnvironment: String, container: String, environment: Environment) throws {
        let key: [any SQLiteValueConvertible] = [container, environment.rawValue, apnsEnvironment, token]
        try db.execute(
            "DELETE FROM apns_device_tokens WHERE container = ? AND environment = ? AND apns_environment = ? AND token = ?", SQLiteArguments(key)
        )
        try db.execute(
            "DELETE FROM apns_queue WHERE token = ? AND container = ? AND environment = ? AND apns_environment = ?",
            SQLiteArguments([token] + key.prefix(3))
        )
    }

    func enqueueAPNsPushes(_ pushes: [NewAPNsPush], maximumPerToken: Int, leasing: APNsLease?) throws -> APNsEnqueued {
        var ids: [Int64] = []
        for (index, push) in pushes.enumerated() {
            let leased = leasing.map { index < $0.limit } ?? false
            let id = try db.fetchOne(
                Int64.self,
                """
                INSERT INTO apns_queue (container, environment, apns_environment, token, payload, push_type, created_at, attempts, lease_until)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id
                """,
                [
                    push.container, push.environment.rawValue, push.apnsEnvironment.rawValue, push.token, push.payload, push.pushType.rawValue,
                    push.createdAt, leased ? 1 : 0, leased ? leasing?.until ?? 0 : 0,
                ]
            )
            guard let id else { throw SQLiteStoreCorruption(message: "an APNs queue insert returned no id") }
            ids.append(id)
        }
        var dropped: Set<Int64> = []
        for token in Set(pushes.map(\.token)).sorted() {
            dropped.formUnion(
                try db.fetchAll(
                    Int64.self,
                    "DELETE FROM apns_queue WHERE id IN (SELECT id FROM apns_queue WHERE token = ? ORDER BY id DESC LIMIT -1 OFFSET ?) RETURNING id",
                    [token, max(1, maximumPerToken)]
                )
            )
        }
        return APNsEnqueued(inserted: ids, pushes: pushes, dropped: dropped, leasing: leasing)
    }

    func claimAPNsPushes(limit: Int, now: Int64, leaseUntil: Int64) throws -> [APNsPush] {
        try db.fetchAll(
            """
            UPDATE apns_queue SET lease_until = ?, attempts = attempts + 1
            WHERE id IN (SELECT id FROM apns_queue WHERE not_before <= ? AND lease_until <= ? ORDER BY id LIMIT ?)
            RETURNING id, container, environment, apns_environment, token, payload, push_type, created_at, attempts
            """,
            [leaseUntil, now, now, limit]
        ) { row in
            let environment: String = try row[2]
            let type: String = try row[6]
            guard let environmentValue = Environment(rawValue: environment), let pushType = APNsPushType(rawValue: type) else {
                throw SQLiteStoreCorruption(message: "APNs queue row \(try row[0] as Int64) has environment '\(environment)', type '\(type)'")
            }
            let push = NewAPNsPush(
                token: try row[4], container: try row[1], environment: environmentValue, apnsEnvironment: APNsEnvironment(rawValue: try row[3]),
                payload: try row[5], pushType: pushType, createdAt: try row[7]
            )
            return APNsPush(id: try row[0], push: push, attempts: try row[8])
        }.sorted { $0.id < $1.id }
    }

    func finishAPNsPushes(_ ids: [Int64]) throws {
        for id in ids {
            try db.execute("DELETE FROM apns_queue WHERE id = ?", [id])
        }
    }

    func deferAPNsPush(_ id: Int64, notBefore: Int64) throws {
        try db.execute("UPDATE apns_queue SET not_before = ?, lease_until = 0 WHERE id = ?", [notBefore, id])
    }
}
