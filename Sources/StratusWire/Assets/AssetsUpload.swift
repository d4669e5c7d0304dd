/// `assets/upload`: request upload URLs for asset fields (step 1 of the asset flow).
///
/// Step 2 POSTs the bytes to each URL; the CDN answers ``AssetUploadReceipt``, whose
/// ``AssetUploadReceipt/singleFile`` becomes the field value in `records/modify`.
///
/// CloudKit reference: Uploading Assets (assets/upload); Apple's CloudKit Web Services Reference: “assets/upload — request upload URLs”.
public enum AssetsUpload: WireEndpoint {
    /// `assets/upload`.
    public static let operation = EndpointOperation.assetsUpload

    /// One field to upload to: `{recordName?, recordType, fieldName}`.
    public struct Token: Hashable, Sendable, Codable {
        /// The record the asset will belong to (server picks a UUID if absent).
        public var recordName: String?
        /// The record's type.
        public var recordType: String?
        /// The Asset (or Asset list) field.
        public var fieldName: String

        /// Creates an upload token request.
        ///
        /// - Parameters:
        ///   - recordName: The record the asset will belong to.
        ///   - recordType: The record's type.
        ///   - fieldName: The asset field.
        public init(recordName: String? = nil, recordType: String? = nil, fieldName: String) {
            self.recordName = recordName
            self.recordType = recordType
            self.fieldName = fieldName
        }
    }

    /// An upload URL: `{recordName, fieldName, url}` (valid for 15 minutes).
    public struct UploadURL: Hashable, Sendable, Codable {
        /// The record the asset belongs to.
        public var recordName: String
        /// The asset field.
        public var fieldName: String
        /// Where to POST the bytes.
        public var url: String

        /// Creates an upload URL entry.
        ///
        /// - Parameters:
        ///   - recordName: The record the asset belongs to.
        ///   - fieldName: The asset field.
        ///   - url: Where to POST the bytes.
        public init(recordName: String, fieldName: String, url: String) {
            self.recordName = recordName
            self.fieldName = fieldName
            self.url = url
        }
    }

    /// The `assets/upload` request body.
    public struct Request: Hashable, Sendable, Codable {
        /// The zone; `nil` means `_defaultZone`.
        public var zoneID: ZoneID?
        /// The fields to upload to (at most 200).
        public var tokens: [Token]

        /// Creates a request.
        ///
        /// - Parameters:
        ///   - tokens: The fields to upload to.
        ///   - zoneID: The zone.
        public init(tokens: [Token], zoneID: ZoneID? = nil) {
            self.tokens = tokens
            self.zoneID = zoneID
        }
    }

    /// The `assets/upload` response body.
    public struct Response: Hashable, Sendable, Codable {
        /// One upload URL per requested field.
        public var tokens: [UploadURL]

        /// Creates a response.
        ///
        /// - Parameter tokens: One upload URL per requested field.
        public init(tokens: [UploadURL]) {
            self.tokens = tokens
        }
    }
}

/// The CDN's reply to an upload POST: `{"singleFile": {…}}`.
///
/// CloudKit reference: Uploading Assets; Apple's CloudKit Web Services Reference: “Upload the bytes to the CDN”.
public struct AssetUploadReceipt: Hashable, Sendable, Codable {
    /// The asset dictionary to put, verbatim, in the record's field value.
    public var singleFile: Asset

    /// Creates a CDN reply.
    ///
    /// - Parameter singleFile: The uploaded asset.
    public init(singleFile: Asset) {
        self.singleFile = singleFile
    }
}
