/// `changes/database`: zones changed since a sync token (the cheap "anything new?" probe).
///
/// CloudKit reference: Fetching Database Changes (changes/database); Apple's CloudKit Web Services Reference: “changes/database”.
public enum DatabaseChanges: WireEndpoint {
    /// `changes/database`.
    public static let operation = EndpointOperation.changesDatabase

    /// The `changes/database` request body.
    public struct Request: Hashable, Sendable, Codable {
        /// Where the last fetch ended; `nil` on the first call.
        public var syncToken: SyncToken?
        /// Maximum zones per page.
        public var resultsLimit: Int?

        /// Creates a request.
        ///
        /// - Parameters:
        ///   - syncToken: Where the last fetch ended.
        ///   - resultsLimit: Maximum zones per page.
        public init(syncToken: SyncToken? = nil, resultsLimit: Int? = nil) {
            self.syncToken = syncToken
            self.resultsLimit = resultsLimit
        }
    }

    /// The `changes/database` response body.
    public struct Response: Hashable, Sendable, Codable {
        /// Changed zones as `{"zoneID": …}` (with `"deleted": true` for removed ones) or errors.
        public var zones: [ZoneResult]
        /// The position after the last returned change.
        public var syncToken: SyncToken
        /// Whether another page is waiting.
        public var moreComing: Bool

        /// Creates a response.
        ///
        /// - Parameters:
        ///   - zones: Changed zones.
        ///   - syncToken: The position after the last returned change.
        ///   - moreComing: Whether another page is waiting.
        public init(zones: [ZoneResult], syncToken: SyncToken, moreComing: Bool) {
            self.zones = zones
            self.syncToken = syncToken
            self.moreComing = moreComing
        }
    }
}
