/// A per-share failure in `records/resolve` and `records/accept`: the ShortGUID Fetch Error dictionary.
///
/// CloudKit reference: Types ("ShortGUID Fetch Error Dictionary"); Apple's CloudKit Web Services Reference: “Sharing dictionaries”.
public struct ShortGUIDFetchError: Error, Hashable, Sendable, Codable {
    /// A human-readable explanation.
    public var reason: String?
    /// Seconds to wait before retrying.
    public var retryAfter: Int?
    /// What went wrong.
    public var serverErrorCode: ServerErrorCode

    /// Creates a short GUID error.
    ///
    /// - Parameters:
    ///   - serverErrorCode: What went wrong.
    ///   - reason: A human-readable explanation.
    ///   - retryAfter: Seconds to wait before retrying.
    public init(serverErrorCode: ServerErrorCode, reason: String? = nil, retryAfter: Int? = nil) {
        self.reason = reason
        self.retryAfter = retryAfter
        self.serverErrorCode = serverErrorCode
    }
}
