/// A per-record failure inside `records` of a batch response: the Record Fetch Error dictionary.
///
/// ```json
/// {"recordName":"t0","serverErrorCode":"CONFLICT","reason":"…","uuid":"9a1…"}
/// ```
///
/// CloudKit reference: Types ("Record Fetch Error Dictionary"); Apple's CloudKit Web Services Reference: “Error dictionaries”.
public struct RecordFetchError: Error, Hashable, Sendable, Codable {
    /// The record the error is about.
    public var recordName: String?
    /// A human-readable explanation.
    public var reason: String?
    /// What went wrong.
    public var serverErrorCode: ServerErrorCode
    /// Seconds to wait before retrying.
    public var retryAfter: Int?
    /// A unique ID for the failure.
    public var uuid: String?
    /// Where to sign in (only with `AUTHENTICATION_REQUIRED`).
    public var redirectURL: String?
    /// Stratus extension: with `CONFLICT` and `EXISTS`, the record as the server has it, so the
    /// client can merge and retry without fetching it again. CloudKit clients ignore the key.
    public var serverRecord: Record?

    /// Creates a record error.
    ///
    /// - Parameters:
    ///   - recordName: The record the error is about.
    ///   - serverErrorCode: What went wrong.
    ///   - reason: A human-readable explanation.
    ///   - retryAfter: Seconds to wait before retrying.
    ///   - uuid: A unique ID for the failure.
    ///   - redirectURL: Where to sign in.
    public init(
        recordName: String?, serverErrorCode: ServerErrorCode, reason: String? = nil, retryAfter: Int? = nil,
        uuid: String? = nil, redirectURL: String? = nil, serverRecord: Record? = nil
    ) {
        self.recordName = recordName
        self.reason = reason
        self.serverErrorCode = serverErrorCode
        self.retryAfter = retryAfter
        self.uuid = uuid
        self.redirectURL = redirectURL
        self.serverRecord = serverRecord
    }
}
