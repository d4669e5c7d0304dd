import StratusWire

/// Empties a container's development environment — every zone (with its records and their asset
/// references) and every subscription — and puts production's schema back in place of the
/// development schema, as Apple's CloudKit Console's reset does; production is never touched
/// (the console's "Reset development", Documentation/0022-console.md).
///
/// Zones go exactly as `zones/modify` deletes them (``RecordStoreWriter/deleteZoneAndContents(_:now:)``),
/// so every zone leaves a tombstone in its database's change feed and a syncing client learns it
/// is gone; the default zones come back empty on their next use. The development schema becomes
/// production's (not an empty one: a deploy must still find every production type in
/// development). Run it inside one ``RecordStore/write(_:)``: the reset commits whole or not at
/// all. A running node's schema cache sees the new schema at the next `records/modify` of the
/// environment (like a schema import).
///
/// ```swift
/// let summary = try await store.write { tx in
///     try DevelopmentReset.reset(container: "iCloud.com.example.Notes", now: now, in: tx)
/// }
/// ```
public enum DevelopmentReset {
    /// What a reset removed.
    public struct Summary: Sendable, Hashable, Codable {
        /// Databases (public, each user's private, shared) that had zones.
        public var databases = 0
        /// Zones deleted, default zones included.
        public var zones = 0
        /// Subscriptions deleted.
        public var subscriptions = 0
        /// Record types of the development schema that production does not have, now gone.
        public var recordTypes = 0
    }

    /// Resets the development environment of `container`.
    ///
    /// - Parameters:
    ///   - container: The container identifier.
    ///   - now: The time of the deletions, in milliseconds since 1970.
    ///   - tx: A write transaction.
    /// - Returns: What was removed.
    /// - Throws: ``SchemaError`` ``SchemaError/Code/containerNotFound`` for an unknown container.
    public static func reset(container: String, now: Int64, in tx: any RecordStoreWriter) throws -> Summary {
        guard try tx.containerExists(container) else {
            throw SchemaError(.containerNotFound, "container '\(container)' does not exist")
        }
        var summary = Summary()
        for database in try tx.databases(of: container) where database.environment == .development {
            summary.databases += 1
            for zone in try tx.zones(in: database) {
                try tx.deleteZoneAndContents(zone, now: now)
                summary.zones += 1
            }
            for subscription in try tx.subscriptions(in: database)
            where try tx.deleteSubscription(id: subscription.subscription.subscriptionID, in: database, subscriber: subscription.subscriber) {
                summary.subscriptions += 1
            }
        }
        let production = try tx.schema(container: container, environment: .production)
        let development = try tx.schema(container: container, environment: .development)
        summary.recordTypes = development.recordTypes.keys.filter { production.recordTypes[$0] == nil }.count
        try tx.saveSchema(production, container: container, environment: .development)
        return summary
    }
}
