/// What a share URL leads to: the ShortGUID Result dictionary.
///
/// CloudKit reference: Types ("ShortGUID Result Dictionary"); Apple's CloudKit Web Services Reference: “Sharing dictionaries”.
public struct ShareMetadata: Hashable, Sendable, Codable {
    /// A participant the server thinks may be the caller.
    public struct PotentialMatch: Hashable, Sendable, Codable {
        /// The participant's ID.
        public var participantId: String?
        /// The participant's contact details (`emailAddress`, `phoneNumber`).
        public var contactInformation: UserLookupInfo?

        /// Creates a potential match.
        ///
        /// - Parameters:
        ///   - participantId: The participant's ID.
        ///   - contactInformation: The participant's contact details.
        public init(participantId: String? = nil, contactInformation: UserLookupInfo? = nil) {
            self.participantId = participantId
            self.contactInformation = contactInformation
        }
    }

    /// The container the share lives in.
    public var containerIdentifier: String?
    /// `PRIVATE` (the caller owns it) or `SHARED`.
    public var databaseScope: String?
    /// The shared root record's name.
    public var rootRecordName: String?
    /// The share's owner.
    public var ownerIdentity: UserIdentity?
    /// The environment (`development`/`production`).
    public var environment: String?
    /// The root record, when requested.
    public var rootRecord: Record?
    /// The share's zone.
    public var zoneID: ZoneID?
    /// The share record.
    public var share: Record?
    /// The short GUID.
    public var shortGUID: String?
    /// Participants that may be the caller.
    public var potentialMatchList: [PotentialMatch]?
    /// The caller's permission.
    public var participantPermission: SharePermission?
    /// The caller's acceptance status.
    public var participantStatus: ParticipantAcceptanceStatus?
    /// The caller's role.
    public var participantType: ParticipantType?
    /// The fallback page configured in the dashboard.
    public var webpageURL: String?

    /// Creates share metadata; set the other properties as needed.
    ///
    /// - Parameters:
    ///   - shortGUID: The short GUID.
    ///   - containerIdentifier: The container.
    ///   - zoneID: The share's zone.
    public init(shortGUID: String? = nil, containerIdentifier: String? = nil, zoneID: ZoneID? = nil) {
        self.shortGUID = shortGUID
        self.containerIdentifier = containerIdentifier
        self.zoneID = zoneID
    }
}

/// One entry of `results` in `records/resolve` and `records/accept`: metadata or an error.
public enum ShortGUIDResult: Hashable, Sendable, Codable {
    /// The share's metadata.
    case share(ShareMetadata)
    /// The per-share failure.
    case error(ShortGUIDFetchError)

    /// Decodes metadata or, when `serverErrorCode` is present, an error.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: ``WireError`` or `DecodingError` naming the path of the bad key.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: WireCodingKey.self)
        if container.contains(WireCodingKey("serverErrorCode")) {
            self = .error(try ShortGUIDFetchError(from: decoder))
        } else {
            self = .share(try ShareMetadata(from: decoder))
        }
    }

    /// Encodes the metadata or the error dictionary.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .share(let metadata): try metadata.encode(to: encoder)
        case .error(let error): try error.encode(to: encoder)
        }
    }
}
