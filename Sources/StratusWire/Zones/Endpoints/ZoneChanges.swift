/// `changes/zone`: the records changed in several zones, each since its own sync token.
///
/// CloudKit reference: Fetching Record Zone Changes (changes/zone); Apple's CloudKit Web Services Reference: “changes/zone”.
public enum ZoneChanges: WireEndpoint {
    /// `changes/zone`.
    public static let operation = EndpointOperation.changesZone

    /// Per-zone options; each key overrides the request's top-level one.
    public struct ZoneOptions: Hashable, Sendable, Codable {
        /// The zone.
        public var zoneID: ZoneID
        /// Where the last fetch of this zone ended.
        public var syncToken: SyncToken?
        /// Maximum records for this zone.
        public var resultsLimit: Int?
        /// Fields to return.
        public var desiredKeys: [String]?
        /// Record types to include.
        public var desiredRecordTypes: [String]?
        /// Newest first.
        public var reverse: Bool?

        /// Creates per-zone options.
        ///
        /// - Parameters:
        ///   - zoneID: The zone.
        ///   - syncToken: Where the last fetch ended.
        ///   - resultsLimit: Maximum records.
        ///   - desiredKeys: Fields to return.
        ///   - desiredRecordTypes: Record types to include.
        ///   - reverse: Newest first.
        public init(
            zoneID: ZoneID, syncToken: SyncToken? = nil, resultsLimit: Int? = nil, desiredKeys: [String]? = nil,
            desiredRecordTypes: [String]? = nil, reverse: Bool? = nil
        ) {
            self.zoneID = zoneID
            self.syncToken = syncToken
            self.resultsLimit = resultsLimit
            self.desiredKeys = desiredKeys
            self.desiredRecordTypes = desiredRecordTypes
            self.reverse = reverse
        }
    }

    /// The `changes/zone` request body.
    public struct Request: Hashable, Sendable, Codable {
        /// The zones to fetch, with per-zone options.
        public var zones: [ZoneOptions]
        /// Default maximum records per zone.
        public var resultsLimit: Int?
        /// Default fields to return.
        public var desiredKeys: [String]?
        /// Default record types to include (`nil` = all).
        public var desiredRecordTypes: [String]?
        /// Default order.
        public var reverse: Bool?
        /// Ask for number field values as strings. Decoding accepts Apple's printed spelling
        /// `numberAsStrings` too; encoding writes `numbersAsStrings`.
        public var numbersAsStrings: Bool?

        /// Creates a request.
        ///
        /// - Parameters:
        ///   - zones: The zones to fetch.
        ///   - resultsLimit: Default maximum records per zone.
        ///   - desiredKeys: Default fields to return.
        ///   - desiredRecordTypes: Default record types to include.
        ///   - reverse: Default order.
        ///   - numbersAsStrings: Ask for number values as strings.
        public init(
            zones: [ZoneOptions], resultsLimit: Int? = nil, desiredKeys: [String]? = nil,
            desiredRecordTypes: [String]? = nil, reverse: Bool? = nil, numbersAsStrings: Bool? = nil
        ) {
            self.zones = zones
            self.resultsLimit = resultsLimit
            self.desiredKeys = desiredKeys
            self.desiredRecordTypes = desiredRecordTypes
            self.reverse = reverse
            self.numbersAsStrings = numbersAsStrings
        }

        private enum CodingKeys: String, CodingKey {
            case zones, resultsLimit, desiredKeys, desiredRecordTypes, reverse, numbersAsStrings, numberAsStrings
        }

        /// Decodes the request, accepting `numbersAsStrings` and `numberAsStrings`.
        ///
        /// - Parameter decoder: The decoder to read from.
        /// - Throws: ``WireError`` or `DecodingError` naming the path of the bad key.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            zones = try container.decode([ZoneOptions].self, forKey: .zones)
            resultsLimit = try container.decodeIfPresent(Int.self, forKey: .resultsLimit)
            desiredKeys = try container.decodeIfPresent([String].self, forKey: .desiredKeys)
            desiredRecordTypes = try container.decodeIfPresent([String].self, forKey: .desiredRecordTypes)
            reverse = try container.decodeIfPresent(Bool.self, forKey: .reverse)
            numbersAsStrings =
                try container.decodeIfPresent(Bool.self, forKey: .numbersAsStrings)
                ?? container.decodeIfPresent(Bool.self, forKey: .numberAsStrings)
        }

        /// Encodes the request with the `numbersAsStrings` spelling.
        ///
        /// - Parameter encoder: The encoder to write to.
        /// - Throws: Whatever the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(zones, forKey: .zones)
            try container.encodeIfPresent(resultsLimit, forKey: .resultsLimit)
            try container.encodeIfPresent(desiredKeys, forKey: .desiredKeys)
            try container.encodeIfPresent(desiredRecordTypes, forKey: .desiredRecordTypes)
            try container.encodeIfPresent(reverse, forKey: .reverse)
            try container.encodeIfPresent(numbersAsStrings, forKey: .numbersAsStrings)
        }
    }

    /// One zone's changes: the Zone Record Fetch dictionary.
    public struct ZoneRecords: Hashable, Sendable, Codable {
        /// The zone.
        public var zoneID: ZoneID
        /// Changed records and tombstones.
        public var records: [RecordResult]
        /// The position after the last returned change.
        public var syncToken: SyncToken
        /// Whether another page is waiting for this zone.
        public var moreComing: Bool

        /// Creates one zone's changes.
        ///
        /// - Parameters:
        ///   - zoneID: The zone.
        ///   - records: Changed records and tombstones.
        ///   - syncToken: The position after the last returned change.
        ///   - moreComing: Whether another page is waiting.
        public init(zoneID: ZoneID, records: [RecordResult], syncToken: SyncToken, moreComing: Bool) {
            self.zoneID = zoneID
            self.records = records
            self.syncToken = syncToken
            self.moreComing = moreComing
        }
    }

    /// One entry of the response's `zones`: a zone's changes or a zone record fetch error.
    public enum ZoneResult: Hashable, Sendable, Codable {
        /// The zone's changes.
        case changes(ZoneRecords)
        /// The per-zone failure.
        case error(ZoneRecordFetchError)

        /// Decodes changes or, when `serverErrorCode` is present, an error.
        ///
        /// - Parameter decoder: The decoder to read from.
        /// - Throws: ``WireError`` or `DecodingError` naming the path of the bad key.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: WireCodingKey.self)
            if container.contains(WireCodingKey("serverErrorCode")) {
                self = .error(try ZoneRecordFetchError(from: decoder))
            } else {
                self = .changes(try ZoneRecords(from: decoder))
            }
        }

        /// Encodes the changes or the error dictionary.
        ///
        /// - Parameter encoder: The encoder to write to.
        /// - Throws: Whatever the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .changes(let changes): try changes.encode(to: encoder)
            case .error(let error): try error.encode(to: encoder)
            }
        }
    }

    /// The `changes/zone` response body.
    public struct Response: Hashable, Sendable, Codable {
        /// One result per requested zone.
        public var zones: [ZoneResult]

        /// Creates a response.
        ///
        /// - Parameter zones: One result per requested zone.
        public init(zones: [ZoneResult]) {
            self.zones = zones
        }
    }
}
