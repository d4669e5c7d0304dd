import StratusServer
import StratusSQLite
import StratusWire

/// The reads of a whole-container export (``ExportStoreReader``) on SQLite.
extension SQLiteStoreTransaction: ExportStoreReader {
    func databases(of container: String) throws -> [DatabaseKey] {
        try db.fetchAll(
            "SELECT environment, scope, owner FROM databases WHERE container = ? ORDER BY environment, scope, owner", [container]
        ) { row in
            let environment: String = try row[0]
            let scope: String = try row[1]
            guard let environmentValue = Environment(rawValue: environment), let scopeValue = DatabaseScope(rawValue: scope) else {
                throw SQLiteStoreCorruption(message: "a database of \(container) has environment '\(environment)' and scope '\(scope)'")
            }
            return DatabaseKey(container: container, environment: environmentValue, scope: scopeValue, owner: try row[2])
        }
    }

    func subscriptions(in database: DatabaseKey) throws -> [StoredSubscription] {
        try db.fetchAll(
            """
            SELECT subscriber, body, created_at FROM subscriptions
            WHERE container = ? AND environment = ? AND scope = ? AND owner = ? ORDER BY subscriber, subscription_id
            """,
            SQLiteArguments(Self.databaseArguments(database)), Self.subscription(database)
        )
    }

    func shortGUIDs(inZone zoneRowID: Int64) throws -> [String: String] {
        let pairs = try db.fetchAll("SELECT record_name, short_guid FROM short_guids WHERE zone_id = ?", [zoneRowID]) { row in
            (try row[0] as String, try row[1] as String)
        }
        return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }
}
