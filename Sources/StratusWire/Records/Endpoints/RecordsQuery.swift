/// `records/query`: search records with filters and sorts, one page at a time.
///
/// CloudKit reference: Fetching Records Using a Query (records/query); Apple's CloudKit Web Services Reference: “records/query”.
public enum RecordsQuery: WireEndpoint {
    /// `records/query`.
    public static let operation = EndpointOperation.recordsQuery

    /// The `records/query` request body.
    public struct Request: Hashable, Sendable, Codable {
        /// What to search for.
        public var query: Query
        /// The zone to search; when set, `zoneWide` is ignored.
        public var zoneID: ZoneID?
        /// Maximum records per page (default and maximum 200).
        public var resultsLimit: Int?
        /// The cursor from the previous page.
        public var continuationMarker: ContinuationMarker?
        /// Fields to return; `nil` means all.
        public var desiredKeys: [String]?
        /// Search every zone (`true`) or only the default zone.
        public var zoneWide: Bool?
        /// Ask for number field values as strings in the response.
        public var numbersAsStrings: Bool?

        /// Creates a request.
        ///
        /// - Parameters:
        ///   - query: What to search for.
        ///   - zoneID: The zone to search.
        ///   - resultsLimit: Maximum records per page.
        ///   - continuationMarker: The cursor from the previous page.
        ///   - desiredKeys: Fields to return.
        ///   - zoneWide: Search every zone.
        ///   - numbersAsStrings: Ask for number values as strings.
        public init(
            query: Query, zoneID: ZoneID? = nil, resultsLimit: Int? = nil, continuationMarker: ContinuationMarker? = nil,
            desiredKeys: [String]? = nil, zoneWide: Bool? = nil, numbersAsStrings: Bool? = nil
        ) {
            self.query = query
            self.zoneID = zoneID
            self.resultsLimit = resultsLimit
            self.continuationMarker = continuationMarker
            self.desiredKeys = desiredKeys
            self.zoneWide = zoneWide
            self.numbersAsStrings = numbersAsStrings
        }
    }

    /// The `records/query` response body.
    public struct Response: Hashable, Sendable, Codable {
        /// Matching records (or per-record errors).
        public var records: [RecordResult]
        /// Present only when more results exist; resend the query with it.
        public var continuationMarker: ContinuationMarker?

        /// Creates a response.
        ///
        /// - Parameters:
        ///   - records: Matching records.
        ///   - continuationMarker: The cursor for the next page.
        public init(records: [RecordResult], continuationMarker: ContinuationMarker? = nil) {
            self.records = records
            self.continuationMarker = continuationMarker
        }
    }
}
