/// Identifies a record: its name plus its zone.
///
/// The wire has no RecordID dictionary (a record carries `recordName`, and the zone comes from the
/// request's `zoneID` or the record's own `zoneID`); this value type is what APIs pass around.
///
/// ```swift
/// let id = RecordID(recordName: "t1", zoneID: ZoneID(zoneName: "Projects"))
/// ```
public struct RecordID: Hashable, Sendable {
    /// The record's name, unique within its zone.
    public var recordName: String
    /// The record's zone.
    public var zoneID: ZoneID

    /// Creates a record ID.
    ///
    /// - Parameters:
    ///   - recordName: The record's name.
    ///   - zoneID: The record's zone; the default zone if omitted.
    public init(recordName: String, zoneID: ZoneID = .defaultZone) {
        self.recordName = recordName
        self.zoneID = zoneID
    }
}
