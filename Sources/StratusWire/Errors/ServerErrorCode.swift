/// A CloudKit `serverErrorCode`, with its HTTP status.
///
/// An open set: the 14 documented codes are static constants, and any other string a server
/// sends (`UNIQUE_FIELD_ERROR`, say) is kept verbatim rather than rejected.
///
/// ```swift
/// let code = ServerErrorCode.conflict
/// code.httpStatus    // 409
/// code.isRetryable   // false: refetch first
/// ```
///
/// CloudKit reference: Error Codes; Apple's CloudKit Web Services Reference: “serverErrorCode values”.
public struct ServerErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The wire string, such as `"NOT_FOUND"`.
    public var rawValue: String

    /// Creates a code from its wire string; unknown strings are kept.
    ///
    /// - Parameter rawValue: The wire string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The wire string.
    public var description: String { rawValue }

    /// `ACCESS_DENIED` (403): the caller lacks permission.
    public static let accessDenied = ServerErrorCode(rawValue: "ACCESS_DENIED")
    /// `ATOMIC_ERROR` (400): another item in an atomic batch failed, so this one was not applied.
    public static let atomicError = ServerErrorCode(rawValue: "ATOMIC_ERROR")
    /// `AUTHENTICATION_FAILED` (401): credentials rejected.
    public static let authenticationFailed = ServerErrorCode(rawValue: "AUTHENTICATION_FAILED")
    /// `AUTHENTICATION_REQUIRED` (421): user sign-in needed; the error carries `redirectURL`.
    public static let authenticationRequired = ServerErrorCode(rawValue: "AUTHENTICATION_REQUIRED")
    /// `BAD_REQUEST` (400): malformed or invalid request.
    public static let badRequest = ServerErrorCode(rawValue: "BAD_REQUEST")
    /// `CONFLICT` (409): the `recordChangeTag` is stale.
    public static let conflict = ServerErrorCode(rawValue: "CONFLICT")
    /// `EXISTS` (409): the thing being created already exists.
    public static let exists = ServerErrorCode(rawValue: "EXISTS")
    /// `INTERNAL_ERROR` (500): server-side failure.
    public static let internalError = ServerErrorCode(rawValue: "INTERNAL_ERROR")
    /// `NOT_FOUND` (404): record, subscription or resource absent.
    public static let notFound = ServerErrorCode(rawValue: "NOT_FOUND")
    /// `QUOTA_EXCEEDED` (413): storage quota exhausted.
    public static let quotaExceeded = ServerErrorCode(rawValue: "QUOTA_EXCEEDED")
    /// `THROTTLED` (429): rate limited; retry after `retryAfter` seconds.
    public static let throttled = ServerErrorCode(rawValue: "THROTTLED")
    /// `TRY_AGAIN_LATER` (503): transient problem; retry after `retryAfter` seconds.
    public static let tryAgainLater = ServerErrorCode(rawValue: "TRY_AGAIN_LATER")
    /// `VALIDATING_REFERENCE_ERROR` (412): the change would break a `VALIDATE` reference.
    public static let validatingReferenceError = ServerErrorCode(rawValue: "VALIDATING_REFERENCE_ERROR")
    /// `ZONE_NOT_FOUND` (404): the zone does not exist.
    public static let zoneNotFound = ServerErrorCode(rawValue: "ZONE_NOT_FOUND")

    /// The 14 codes documented in Apple's reference, in its order.
    public static let documented: [ServerErrorCode] = [
        .accessDenied, .atomicError, .authenticationFailed, .authenticationRequired, .badRequest, .conflict, .exists,
        .internalError, .notFound, .quotaExceeded, .throttled, .tryAgainLater, .validatingReferenceError, .zoneNotFound,
    ]

    /// Whether this is one of the 14 documented codes.
    public var isDocumented: Bool { httpStatusIfDocumented != nil }

    /// The HTTP status a whole-request failure with this code uses; 500 for unknown codes.
    ///
    /// Unknown codes map to 500 because the only safe reading of an unrecognised failure is
    /// "the server failed"; clients keep the raw string alongside.
    public var httpStatus: Int { httpStatusIfDocumented ?? 500 }

    private var httpStatusIfDocumented: Int? {
        switch self {
        case .accessDenied: 403
        case .atomicError, .badRequest: 400
        case .authenticationFailed: 401
        case .authenticationRequired: 421
        case .conflict, .exists: 409
        case .internalError: 500
        case .notFound, .zoneNotFound: 404
        case .quotaExceeded: 413
        case .throttled: 429
        case .tryAgainLater: 503
        case .validatingReferenceError: 412
        default: nil
        }
    }

    /// Whether the same request may succeed if simply sent again later (`THROTTLED`, `TRY_AGAIN_LATER`).
    ///
    /// `CONFLICT` needs a refetch, `ATOMIC_ERROR` a fixed batch and `AUTHENTICATION_REQUIRED` a
    /// sign-in first, so they are not retryable in this sense. `INTERNAL_ERROR` ("maybe" in Apple's
    /// table) is not either; honour `retryAfter` when a server sends one.
    public var isRetryable: Bool {
        self == .throttled || self == .tryAgainLater
    }
}
