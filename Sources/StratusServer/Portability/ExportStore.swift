/// Reads only a whole-container export needs, part of every ``RecordStoreReader``.
///
/// No request enumerates a container's databases or every subscriber's subscriptions; an export
/// does (`stratus export`, Documentation/0020-export-format.md). Both back ends have them, so the
/// store contract requires them rather than an export discovering them by a cast (0019).
///
/// ```swift
/// func databases(in store: any RecordStore) async throws -> [DatabaseKey] {
///     try await store.read { tx in try tx.databases(of: "iCloud.com.example.Notes") }
/// }
/// ```
public protocol ExportStoreReader {
    /// Every database of the container that holds or held a zone, in (environment, scope, owner) order.
    func databases(of container: String) throws -> [DatabaseKey]

    /// Every subscription of the database, whoever made it, in (subscriber, ID) order.
    func subscriptions(in database: DatabaseKey) throws -> [StoredSubscription]

    /// The short GUIDs minted for records of the zone, by record name.
    func shortGUIDs(inZone zoneRowID: Int64) throws -> [String: String]
}
