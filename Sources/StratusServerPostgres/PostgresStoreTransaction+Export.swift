import StratusPostgres
import StratusServer
import StratusWire

/// The reads of a whole-container export (``ExportStoreReader``) on PostgreSQL.
extension PostgresStoreTransaction: ExportStoreReader {
    func databases(of container: String) throws -> [DatabaseKey] {
        try query("SELECT environment, scope, owner FROM databases WHERE container = $1 ORDER BY environment, scope, owner", [container]).map { row in
            let environment: String = try row[0]
            let scope: String = try row[1]
            guard let environmentValue = Environment(rawValue: environment), let scopeValue = DatabaseScope(rawValue: scope) else {
                throw PostgresStoreCorruption(message: "a database of \(container) has environment '\(environment)' and scope '\(scope)'")
            }
            return DatabaseKey(container: container, environment: environmentValue, scope: scopeValue, owner: try row[2])
        }
    }

    func subscriptions(in database: DatabaseKey) throws -> [StoredSubscription] {
        try query(
            """
            SELECT subscriber, body, created_at FROM subscriptions
            WHERE container = $1 AND environment = $2 AND scope = $3 AND owner = $4 ORDER BY subscriber, subscription_id
            """,
            Self.arguments(database)
        ).map(Self.subscription(database))
    }

    func shortGUIDs(inZone zoneRowID: Int64) throws -> [String: String] {
        let pairs = try query("SELECT record_name, short_guid FROM short_guids WHERE zone_id = $1", [zoneRowID]).map { row in
            (try row[0] as String, try row[1] as String)
        }
        return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }
}
