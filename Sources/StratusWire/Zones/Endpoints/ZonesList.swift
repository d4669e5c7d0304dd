/// `zones/list` (GET): every zone of the database.
///
/// CloudKit reference: Fetching All Zones (zones/list); Apple's CloudKit Web Services Reference: “zones/list”.
public enum ZonesList: WireEndpoint {
    /// `zones/list`.
    public static let operation = EndpointOperation.zonesList

    /// No body (GET); a POST with `{}` is also accepted.
    public typealias Request = EmptyBody

    /// The `zones/list` response body.
    public struct Response: Hashable, Sendable, Codable {
        /// The zones (or per-zone errors).
        public var zones: [ZoneResult]

        /// Creates a response.
        ///
        /// - Parameter zones: The zones.
        public init(zones: [ZoneResult]) {
            self.zones = zones
        }
    }
}
