public import StratusWire

/// A zone as the store keeps it.
///
/// A deleted zone keeps its row (with ``isDeleted``) so database change feeds
/// can report it; recreating a zone of the same name makes a new row, so sync
/// tokens from the old zone are recognized as stale.
public struct ZoneRow: Hashable, Sendable {
    /// The store's ID for this incarnation of the zone.
    public var rowID: Int64
    /// The database the zone lives in.
    public var database: DatabaseKey
    /// The zone name, such as `_defaultZone` or `Inbox`.
    public var zoneName: String
    /// The latest record change sequence in the zone (0 when nothing changed yet).
    public var changeSequence: Int64
    /// The zone's position in its database's change log (on PostgreSQL the ID of the transaction
    /// that last created, deleted or changed it; ``DatabaseFeedPosition``).
    public var databaseSequence: Int64
    /// When the zone was created, in milliseconds since 1970.
    public var createdAt: Int64
    /// Whether the zone was deleted.
    public var isDeleted: Bool

    /// Creates a zone row.
    public init(
        rowID: Int64, database: DatabaseKey, zoneName: String, changeSequence: Int64, databaseSequence: Int64,
        createdAt: Int64, isDeleted: Bool
    ) {
        self.rowID = rowID
        self.database = database
        self.zoneName = zoneName
        self.changeSequence = changeSequence
        self.databaseSequence = databaseSequence
        self.createdAt = createdAt
        self.isDeleted = isDeleted
    }

    /// The wire zone ID (owner included for non-public databases).
    public var zoneID: ZoneID {
        ZoneID(
            zoneName: zoneName,
            ownerRecordName: database.scope == .public ? nil : database.owner,
            zoneType: zoneName == ZoneID.defaultZoneName ? "DEFAULT_ZONE" : "REGULAR_CUSTOM_ZONE"
        )
    }

    /// Whether this is the default zone.
    public var isDefaultZone: Bool { zoneName == ZoneID.defaultZoneName }
}
