/// `zones/changes` (deprecated): zones changed since a `metaSyncToken`.
///
/// The token key is `metaSyncToken` in both directions; a request that sends `syncToken` is
/// ignored by Apple's server, which replays the first page forever.
///
/// CloudKit reference: Fetching Zone Changes (zones/changes); Apple's CloudKit Web Services Reference: “zones/changes”.
public enum ZonesChanges: WireEndpoint {
    /// `zones/changes`.
    public static let operation = EndpointOperation.zonesChanges

    /// The `zones/changes` request body.
    public struct Request: Hashable, Sendable, Codable {
        /// Where the last fetch ended; `nil` on the first call.
        public var metaSyncToken: SyncToken?
        /// Maximum zones per page.
        public var resultsLimit: Int?

        /// Creates a request.
        ///
        /// - Parameters:
        ///   - metaSyncToken: Where the last fetch ended.
        ///   - resultsLimit: Maximum zones per page.
        public init(metaSyncToken: SyncToken? = nil, resultsLimit: Int? = nil) {
            self.metaSyncToken = metaSyncToken
            self.resultsLimit = resultsLimit
        }
    }

    /// The `zones/changes` response body: exactly `zones`, `metaSyncToken`, `moreComing`.
    public struct Response: Hashable, Sendable, Codable {
        /// Changed zones (or per-zone errors).
        public var zones: [ZoneResult]
        /// The position after the last returned change.
        public var metaSyncToken: SyncToken
        /// Whether another page is waiting.
        public var moreComing: Bool

        /// Creates a response.
        ///
        /// - Parameters:
        ///   - zones: Changed zones.
        ///   - metaSyncToken: The position after the last returned change.
        ///   - moreComing: Whether another page is waiting.
        public init(zones: [ZoneResult], metaSyncToken: SyncToken, moreComing: Bool) {
            self.zones = zones
            self.metaSyncToken = metaSyncToken
            self.moreComing = moreComing
        }
    }
}
