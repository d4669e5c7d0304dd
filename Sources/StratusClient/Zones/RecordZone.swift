public import StratusWire

/// A record zone: a named area of a database with its own change history (`CKRecordZone`).
///
/// ```swift
/// let inbox = try await container.privateCloudDatabase.save(RecordZone(zoneName: "Inbox"))
/// print(inbox.zoneID, inbox.currentSyncToken ?? "-")
/// ```
public struct RecordZone: Hashable, Sendable, CustomStringConvertible {
    /// The zone's ID type.
    public typealias ID = ZoneID

    /// The zone's name and owner.
    public let zoneID: ZoneID
    /// The zone's current position in its change history, when the server reported it.
    public internal(set) var currentSyncToken: SyncToken?
    /// Whether the zone applies `atomic` batches all-or-nothing (custom zones do).
    public internal(set) var supportsAtomicChanges: Bool?

    /// Creates a zone value with a name, owned by the caller.
    ///
    /// - Parameter zoneName: The zone's name.
    public init(zoneName: String) {
        self.init(zoneID: ZoneID(zoneName: zoneName))
    }

    /// Creates a zone value for an ID.
    ///
    /// - Parameter zoneID: The zone's ID.
    public init(zoneID: ZoneID) {
        self.zoneID = zoneID
    }

    /// Creates a zone value from a wire Zone dictionary.
    ///
    /// - Parameter wire: The zone dictionary.
    public init(wire: Zone) {
        self.zoneID = wire.zoneID
        self.currentSyncToken = wire.syncToken
        self.supportsAtomicChanges = wire.atomic
    }

    /// The default zone of every database (`_defaultZone`).
    public static let `default` = RecordZone(zoneID: .defaultZone)

    /// The zone's name.
    public var description: String { "RecordZone(\(zoneID.zoneName))" }
}
