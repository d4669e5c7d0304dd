/// A record zone: the Zone dictionary.
///
/// Full results (`zones/list`, `zones/lookup`, `zones/modify`) carry ``syncToken`` and ``atomic``;
/// change feeds (`changes/database`) carry only ``zoneID`` and, for removed zones, `deleted: true`.
///
/// CloudKit reference: Types ("Zone Dictionary"); Apple's CloudKit Web Services Reference: “Zone dictionary and zone error”.
public struct Zone: Hashable, Sendable, Codable {
    /// The zone's ID.
    public var zoneID: ZoneID
    /// The zone's current position in its change history.
    public var syncToken: SyncToken?
    /// Whether the zone supports atomic batches.
    public var atomic: Bool?
    /// `true` when the zone was deleted (change feeds).
    public var deleted: Bool?

    /// Creates a zone dictionary.
    ///
    /// - Parameters:
    ///   - zoneID: The zone's ID.
    ///   - syncToken: The zone's current change position.
    ///   - atomic: Whether the zone supports atomic batches.
    ///   - deleted: Whether the zone was deleted.
    public init(zoneID: ZoneID, syncToken: SyncToken? = nil, atomic: Bool? = nil, deleted: Bool? = nil) {
        self.zoneID = zoneID
        self.syncToken = syncToken
        self.atomic = atomic
        self.deleted = deleted
    }
}
