public import StratusServer
import StratusSQL
import StratusWire

/// The reads of a whole-container export (``ExportStoreReader``), for either back end.
///
/// A back end's transaction conforms and gets them; the exporter sorts what they return itself
/// (PostgreSQL's `ORDER BY` follows the database's collation, and an export must not).
public protocol SQLExportStore: SQLPushStore, ExportStoreReader {}

extension SQLExportStore {
    /// Every database of the container that holds or held a zone.
    public func databases(of container: String) throws -> [DatabaseKey] {
        try executor.fetchAll(literal: "SELECT environment, scope, owner FROM databases WHERE container = \(container)") { row in
            let environment: String = try row[0]
            let scope: String = try row[1]
            guard let environmentValue = Environment(rawValue: environment), let scopeValue = DatabaseScope(rawValue: scope) else {
                throw corruption("a database of \(container) has environment '\(environment)' and scope '\(scope)'")
            }
            return DatabaseKey(container: container, environment: environmentValue, scope: scopeValue, owner: try row[2])
        }
    }

    /// Every subscription of the database, whoever made it.
    public func subscriptions(in database: DatabaseKey) throws -> [StoredSubscription] {
        try executor.fetchAll(
            literal: "SELECT subscriber, body, created_at FROM subscriptions WHERE \(Self.inDatabase(database))",
            Self.subscription(database)
        )
    }

    /// The short GUIDs minted for records of the zone, by record name.
    public func shortGUIDs(inZone zoneRowID: Int64) throws -> [String: String] {
        let pairs = try executor.fetchAll(literal: "SELECT record_name, short_guid FROM short_guids WHERE zone_id = \(zoneRowID)") { row in
            (try row[0] as String, try row[1] as String)
        }
        return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }
}
