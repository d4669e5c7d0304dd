/// `records/lookup`: fetch records by name (strongly consistent).
///
/// CloudKit reference: Fetching Records Using Record Names (records/lookup); Apple's CloudKit Web Services Reference: “records/lookup”.
public enum RecordsLookup: WireEndpoint {
    /// `records/lookup`.
    public static let operation = EndpointOperation.recordsLookup

    /// One record to fetch: `{recordName, desiredKeys?}`.
    public struct Item: Hashable, Sendable, Codable {
        /// The record's name.
        public var recordName: String
        /// Per-record field projection.
        public var desiredKeys: [String]?

        /// Creates a lookup item.
        ///
        /// - Parameters:
        ///   - recordName: The record's name.
        ///   - desiredKeys: Per-record field projection.
        public init(recordName: String, desiredKeys: [String]? = nil) {
            self.recordName = recordName
            self.desiredKeys = desiredKeys
        }
    }

    /// The `records/lookup` request body.
    public struct Request: Hashable, Sendable, Codable {
        /// The records to fetch.
        public var records: [Item]
        /// Their zone; `nil` means `_defaultZone`.
        public var zoneID: ZoneID?
        /// Fields to return; `nil` means all.
        public var desiredKeys: [String]?
        /// Ask for number field values as strings in the response.
        public var numbersAsStrings: Bool?

        /// Creates a request.
        ///
        /// - Parameters:
        ///   - records: The records to fetch.
        ///   - zoneID: Their zone.
        ///   - desiredKeys: Fields to return.
        ///   - numbersAsStrings: Ask for number values as strings.
        public init(records: [Item], zoneID: ZoneID? = nil, desiredKeys: [String]? = nil, numbersAsStrings: Bool? = nil) {
            self.records = records
            self.zoneID = zoneID
            self.desiredKeys = desiredKeys
            self.numbersAsStrings = numbersAsStrings
        }
    }

    /// The `records/lookup` response body: one result per requested name (`NOT_FOUND` errors for missing ones).
    public struct Response: Hashable, Sendable, Codable {
        /// Records or per-record errors, in request order.
        public var records: [RecordResult]

        /// Creates a response.
        ///
        /// - Parameter records: One result per requested record.
        public init(records: [RecordResult]) {
            self.records = records
        }
    }
}
