/// A per-zone failure in a zones response, and the Zone Record Fetch Error of `changes/zone`.
///
/// ```json
/// {"zoneID":{"zoneName":"Gone"},"serverErrorCode":"ZONE_NOT_FOUND","reason":"zone not found"}
/// ```
///
/// CloudKit reference: Types ("Zone Fetch Error Dictionary"); Apple's CloudKit Web Services Reference: “Zone dictionary and zone error”, “Error dictionaries”.
public struct ZoneFetchError: Error, Hashable, Sendable, Codable {
    /// The zone the error is about.
    public var zoneID: ZoneID?
    /// A human-readable explanation.
    public var reason: String?
    /// What went wrong.
    public var serverErrorCode: ServerErrorCode
    /// Seconds to wait before retrying.
    public var retryAfter: Int?
    /// Where to sign in (only with `AUTHENTICATION_REQUIRED`).
    public var redirectURL: String?

    /// Creates a zone error.
    ///
    /// - Parameters:
    ///   - zoneID: The zone the error is about.
    ///   - serverErrorCode: What went wrong.
    ///   - reason: A human-readable explanation.
    ///   - retryAfter: Seconds to wait before retrying.
    ///   - redirectURL: Where to sign in.
    public init(
        zoneID: ZoneID?, serverErrorCode: ServerErrorCode, reason: String? = nil, retryAfter: Int? = nil,
        redirectURL: String? = nil
    ) {
        self.zoneID = zoneID
        self.reason = reason
        self.serverErrorCode = serverErrorCode
        self.retryAfter = retryAfter
        self.redirectURL = redirectURL
    }
}

/// The Zone Record Fetch Error dictionary of `changes/zone` (`zoneID`, `reason`, `serverErrorCode`).
///
/// It is a subset of ``ZoneFetchError``, so the two share one type.
public typealias ZoneRecordFetchError = ZoneFetchError
