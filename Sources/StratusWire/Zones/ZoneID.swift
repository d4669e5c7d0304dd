/// Identifies a record zone: the Zone ID dictionary.
///
/// `ownerRecordName` is omitted for the caller's own zones and required to address zones in the
/// shared database. `zoneType` is not in Apple's reference but appears in live responses
/// (`REGULAR_CUSTOM_ZONE`); it is kept for round-tripping and is part of equality.
///
/// ```swift
/// let inbox = ZoneID(zoneName: "Inbox")
/// let theirs = ZoneID(zoneName: "Projects", ownerRecordName: "_0123456789abcdef0123456789abcdef")
/// ```
///
/// CloudKit reference: Types ("Zone ID Dictionary"); Apple's CloudKit Web Services Reference: “Zone ID dictionary”.
public struct ZoneID: Hashable, Sendable, Codable {
    /// The zone's name; `_defaultZone` for the default zone.
    public var zoneName: String
    /// The user record name of the zone's owner; `nil` means the caller.
    public var ownerRecordName: String?
    /// The zone type seen in live responses, such as `REGULAR_CUSTOM_ZONE`.
    public var zoneType: String?

    /// Creates a zone ID.
    ///
    /// - Parameters:
    ///   - zoneName: The zone's name.
    ///   - ownerRecordName: The owner's user record name; `nil` for the caller's own zone.
    ///   - zoneType: The zone type, if known.
    public init(zoneName: String, ownerRecordName: String? = nil, zoneType: String? = nil) {
        self.zoneName = zoneName
        self.ownerRecordName = ownerRecordName
        self.zoneType = zoneType
    }

    /// The name of every database's default zone.
    public static let defaultZoneName = "_defaultZone"

    /// The caller's default zone, `{"zoneName":"_defaultZone"}`.
    public static let defaultZone = ZoneID(zoneName: defaultZoneName)

    /// Whether this is the default zone.
    public var isDefaultZone: Bool { zoneName == Self.defaultZoneName }
}
