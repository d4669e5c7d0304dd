/// `records/changes`: the records of one custom zone changed since a sync token.
///
/// Loop while ``Response/moreComing`` is `true`, sending back ``Response/syncToken``. Deleted
/// records appear as tombstones (`{"recordName":…,"deleted":true}`).
///
/// CloudKit reference: Fetching Record Changes (records/changes); Apple's CloudKit Web Services Reference: “records/changes”; Documentation/0002-record-store.md, “Tokens”.
public enum RecordsChanges: WireEndpoint {
    /// `records/changes`.
    public static let operation = EndpointOperation.recordsChanges

    /// The `records/changes` request body.
    public struct Request: Hashable, Sendable, Codable {
        /// The custom zone.
        public var zoneID: ZoneID
        /// Where the last fetch ended; `nil` on the first call.
        public var syncToken: SyncToken?
        /// Maximum records per page.
        public var resultsLimit: Int?
        /// Fields to return; `nil` means all.
        public var desiredKeys: [String]?
        /// Ask for number field values as strings in the response.
        public var numbersAsStrings: Bool?

        /// Creates a request.
        ///
        /// - Parameters:
        ///   - zoneID: The custom zone.
        ///   - syncToken: Where the last fetch ended.
        ///   - resultsLimit: Maximum records per page.
        ///   - desiredKeys: Fields to return.
        ///   - numbersAsStrings: Ask for number values as strings.
        public init(
            zoneID: ZoneID, syncToken: SyncToken? = nil, resultsLimit: Int? = nil, desiredKeys: [String]? = nil,
            numbersAsStrings: Bool? = nil
        ) {
            self.zoneID = zoneID
            self.syncToken = syncToken
            self.resultsLimit = resultsLimit
            self.desiredKeys = desiredKeys
            self.numbersAsStrings = numbersAsStrings
        }
    }

    /// The `records/changes` response body.
    public struct Response: Hashable, Sendable, Codable {
        /// Changed records and tombstones, each at most once, in its latest state.
        public var records: [RecordResult]
        /// The position after the last returned change.
        public var syncToken: SyncToken
        /// Whether another page is waiting.
        public var moreComing: Bool
        /// Whether the changes are listed newest first.
        public var reverse: Bool?

        /// Creates a response.
        ///
        /// - Parameters:
        ///   - records: Changed records and tombstones.
        ///   - syncToken: The position after the last returned change.
        ///   - moreComing: Whether another page is waiting.
        ///   - reverse: Whether the changes are newest first.
        public init(records: [RecordResult], syncToken: SyncToken, moreComing: Bool, reverse: Bool? = nil) {
            self.records = records
            self.syncToken = syncToken
            self.moreComing = moreComing
            self.reverse = reverse
        }
    }
}
