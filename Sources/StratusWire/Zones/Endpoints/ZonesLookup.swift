/// `zones/lookup`: fetch zones by ID.
///
/// CloudKit reference: Fetching Zones by Identifier (zones/lookup); Apple's CloudKit Web Services Reference: “zones/lookup”.
public enum ZonesLookup: WireEndpoint {
    /// `zones/lookup`.
    public static let operation = EndpointOperation.zonesLookup

    /// The `zones/lookup` request body.
    ///
    /// Items are Zone ID dictionaries; `{"zoneID": {…}}` items are accepted too and normalised.
    public struct Request: Hashable, Sendable, Codable {
        /// The zones to fetch.
        public var zones: [ZoneID]

        /// Creates a request.
        ///
        /// - Parameter zones: The zones to fetch.
        public init(zones: [ZoneID]) {
            self.zones = zones
        }

        private enum CodingKeys: String, CodingKey {
            case zones
        }

        /// Decodes the request, accepting both item shapes.
        ///
        /// - Parameter decoder: The decoder to read from.
        /// - Throws: ``WireError`` or `DecodingError` naming the path of the bad key.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            zones = try container.decode([LookupItem].self, forKey: .zones).map(\.zoneID)
        }
    }

    /// The `zones/lookup` response body: one result per requested zone.
    public struct Response: Hashable, Sendable, Codable {
        /// Zones or `ZONE_NOT_FOUND` errors, in request order.
        public var zones: [ZoneResult]

        /// Creates a response.
        ///
        /// - Parameter zones: One result per requested zone.
        public init(zones: [ZoneResult]) {
            self.zones = zones
        }
    }
}

/// A `zones/lookup` item: a Zone ID dictionary or `{"zoneID": {…}}`.
private struct LookupItem: Decodable {
    let zoneID: ZoneID

    private enum CodingKeys: String, CodingKey {
        case zoneID
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.zoneID) {
            zoneID = try container.decode(ZoneID.self, forKey: .zoneID)
        } else {
            zoneID = try ZoneID(from: decoder)
        }
    }
}
