/// One entry of a `zones/modify` request: `{"operationType": "create"|"delete", "zone": {…}}`.
///
/// ```swift
/// let request = ZonesModify.Request(operations: [.create(ZoneID(zoneName: "Projects"))])
/// ```
///
/// CloudKit reference: Modifying Zones (zones/modify); Apple's CloudKit Web Services Reference: “zones/modify”.
public struct ZoneOperation: Hashable, Sendable, Codable {
    /// The two zone operation types.
    public enum OperationType: String, Hashable, Sendable, Codable, CaseIterable {
        /// Create the zone.
        case create
        /// Delete the zone and all its records.
        case delete
    }

    /// What to do.
    public var operationType: OperationType
    /// The zone (only `zoneID` is meaningful).
    public var zone: Zone

    /// Creates a zone operation.
    ///
    /// - Parameters:
    ///   - operationType: What to do.
    ///   - zone: The zone.
    public init(operationType: OperationType, zone: Zone) {
        self.operationType = operationType
        self.zone = zone
    }

    /// Creates a zone.
    ///
    /// - Parameter zoneID: The new zone's ID.
    /// - Returns: A `create` operation.
    public static func create(_ zoneID: ZoneID) -> ZoneOperation {
        ZoneOperation(operationType: .create, zone: Zone(zoneID: zoneID))
    }

    /// Deletes a zone.
    ///
    /// - Parameter zoneID: The zone to delete.
    /// - Returns: A `delete` operation.
    public static func delete(_ zoneID: ZoneID) -> ZoneOperation {
        ZoneOperation(operationType: .delete, zone: Zone(zoneID: zoneID))
    }
}
