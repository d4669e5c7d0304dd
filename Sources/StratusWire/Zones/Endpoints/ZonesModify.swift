/// `zones/modify`: create and delete custom zones (private database only).
///
/// CloudKit reference: Modifying Zones (zones/modify); Apple's CloudKit Web Services Reference: “zones/modify”.
public enum ZonesModify: WireEndpoint {
    /// `zones/modify`.
    public static let operation = EndpointOperation.zonesModify

    /// The `zones/modify` request body.
    public struct Request: Hashable, Sendable, Codable {
        /// The operations, applied in order.
        public var operations: [ZoneOperation]

        /// Creates a request.
        ///
        /// - Parameter operations: The operations.
        public init(operations: [ZoneOperation]) {
            self.operations = operations
        }
    }

    /// The `zones/modify` response body: one result per operation.
    public struct Response: Hashable, Sendable, Codable {
        /// Full zone dictionaries or per-zone errors.
        public var zones: [ZoneResult]

        /// Creates a response.
        ///
        /// - Parameter zones: One result per operation.
        public init(zones: [ZoneResult]) {
            self.zones = zones
        }
    }
}
