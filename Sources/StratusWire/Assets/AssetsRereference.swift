/// `assets/rereference`: get write-side asset dictionaries for existing asset fields.
///
/// CloudKit reference: Referencing Existing Assets (assets/rereference); Apple's CloudKit Web Services Reference: “assets/rereference”.
public enum AssetsRereference: WireEndpoint {
    /// `assets/rereference`.
    public static let operation = EndpointOperation.assetsRereference

    /// An existing asset field: `{recordName, fieldName}`.
    public struct AssetField: Hashable, Sendable, Codable {
        /// The record holding the asset.
        public var recordName: String
        /// The asset field.
        public var fieldName: String

        /// Creates an asset field reference.
        ///
        /// - Parameters:
        ///   - recordName: The record holding the asset.
        ///   - fieldName: The asset field.
        public init(recordName: String, fieldName: String) {
            self.recordName = recordName
            self.fieldName = fieldName
        }
    }

    /// The `assets/rereference` request body.
    public struct Request: Hashable, Sendable, Codable {
        /// The zone; `nil` means `_defaultZone`.
        public var zoneID: ZoneID?
        /// The asset fields.
        public var assets: [AssetField]

        /// Creates a request.
        ///
        /// - Parameters:
        ///   - assets: The asset fields.
        ///   - zoneID: The zone.
        public init(assets: [AssetField], zoneID: ZoneID? = nil) {
            self.assets = assets
            self.zoneID = zoneID
        }
    }

    /// The `assets/rereference` response: a top-level JSON array of asset dictionaries.
    ///
    /// Decoding also accepts `{"assets": […]}`, in case a server wraps the array.
    public struct Response: Hashable, Sendable, Codable {
        /// One asset dictionary per input.
        public var assets: [Asset]

        /// Creates a response.
        ///
        /// - Parameter assets: One asset dictionary per input.
        public init(assets: [Asset]) {
            self.assets = assets
        }

        private enum CodingKeys: String, CodingKey {
            case assets
        }

        /// Decodes a top-level array, or an object with an `assets` array.
        ///
        /// - Parameter decoder: The decoder to read from.
        /// - Throws: ``WireError`` or `DecodingError` naming the path of the bad key.
        public init(from decoder: any Decoder) throws {
            if case .object = try JSONValue(from: decoder) {
                assets = try decoder.container(keyedBy: CodingKeys.self).decode([Asset].self, forKey: .assets)
            } else {
                assets = try decoder.singleValueContainer().decode([Asset].self)
            }
        }

        /// Encodes the top-level array.
        ///
        /// - Parameter encoder: The encoder to write to.
        /// - Throws: Whatever the encoder throws.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(assets)
        }
    }
}
