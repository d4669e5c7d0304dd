/// Where a reader of a database's zone-change feed (`changes/database`, `zones/changes`) stands:
/// after the zone change at this position.
///
/// Zone changes are ordered by their zone's ``ZoneRow/databaseSequence``, then by zone row ID. On
/// SQLite the sequence is a per-database counter, unique per change; on PostgreSQL it is the ID
/// of the transaction that made the change, shared by every zone that transaction changed
/// (Documentation/0008-postgres.md, "The database change log from transaction IDs").
///
/// ```swift
/// let page = try await store.read { tx in try tx.zoneChanges(in: database, after: .start, limit: 200) }
/// let next = page.zones.last.map(DatabaseFeedPosition.init(after:)) ?? .start
/// print("read through sequence \(next.sequence)")
/// ```
public struct DatabaseFeedPosition: Hashable, Sendable {
    /// The database sequence of the last zone change read.
    public var sequence: Int64
    /// The row ID of the last zone read at ``sequence``; `nil` for a position from a token made
    /// before zone row IDs were part of it (every change up to a database counter value: each
    /// back end maps it onto its own log, ``RecordStoreReader/zoneChanges(in:after:limit:)``).
    public var zoneRowID: Int64?

    /// Creates a position.
    ///
    /// - Parameters:
    ///   - sequence: A database sequence.
    ///   - zoneRowID: A zone row ID at that sequence, or `nil` for a counter value of an older token.
    public init(sequence: Int64, zoneRowID: Int64?) {
        self.sequence = sequence
        self.zoneRowID = zoneRowID
    }

    /// The position right after a zone's change.
    ///
    /// - Parameter zone: A zone the feed returned.
    public init(after zone: ZoneRow) {
        self.init(sequence: zone.databaseSequence, zoneRowID: zone.rowID)
    }

    /// Before every change.
    public static let start = DatabaseFeedPosition(sequence: .min, zoneRowID: .min)
}

/// A page of a database's zone-change feed as a back end reads it in one snapshot.
///
/// ```swift
/// let page = try await store.read { tx in try tx.zoneChanges(in: database, after: .start, limit: 200) }
/// if let held = page.heldBackThrough { print("changes through \(held) wait for older writes in flight") }
/// ```
public struct DatabaseZoneChanges: Sendable {
    /// Zones changed after the position whose changes are final, in feed order.
    public var zones: [ZoneRow]
    /// Zones whose changes committed after ``zones`` but are held back because a write with an
    /// older sequence is still in flight (PostgreSQL), in feed order: a token must not pass them yet.
    public var heldBack: [ZoneRow]
    /// Every change with a sequence below this one is final: no write in flight can still add one
    /// (PostgreSQL's oldest running transaction ID; `Int64.max` where changes commit in sequence order).
    public var horizon: Int64

    /// The newest sequence held back, if any change is.
    public var heldBackThrough: Int64? { heldBack.last?.databaseSequence }

    /// Creates a page.
    ///
    /// - Parameters:
    ///   - zones: Zones whose changes are final, in feed order.
    ///   - heldBack: Zones whose committed changes are held back, in feed order.
    ///   - horizon: The sequence below which every change is final.
    public init(zones: [ZoneRow], heldBack: [ZoneRow] = [], horizon: Int64 = .max) {
        self.zones = zones
        self.heldBack = heldBack
        self.horizon = horizon
    }
}
