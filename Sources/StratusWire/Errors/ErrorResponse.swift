/// The body of a whole-request failure (any non-2xx response).
///
/// ```json
/// {"uuid":"4f02…","serverErrorCode":"AUTHENTICATION_REQUIRED","reason":"request needs authorization",
///  "redirectURL":"https://…"}
/// ```
///
/// The HTTP status is ``ServerErrorCode/httpStatus`` of ``serverErrorCode``.
///
/// ```swift
/// import StratusWire
///
/// func errorBody(for wireError: WireError, requestID: String) -> ErrorResponse {
///     ErrorResponse(uuid: requestID, serverErrorCode: .badRequest, reason: wireError.reason)
/// }
/// ```
///
/// CloudKit reference: Error Codes; Apple's CloudKit Web Services Reference: “Shapes”.
public struct ErrorResponse: Error, Hashable, Sendable, Codable {
    /// A unique ID for the failed request, for support.
    public var uuid: String
    /// What went wrong.
    public var serverErrorCode: ServerErrorCode
    /// A human-readable explanation.
    public var reason: String
    /// Seconds to wait before retrying; absent means "do not retry".
    public var retryAfter: Int?
    /// Where to sign in (only with `AUTHENTICATION_REQUIRED`).
    public var redirectURL: String?

    /// Creates an error body.
    ///
    /// - Parameters:
    ///   - uuid: A unique ID for the request.
    ///   - serverErrorCode: What went wrong.
    ///   - reason: A human-readable explanation.
    ///   - retryAfter: Seconds to wait before retrying.
    ///   - redirectURL: Where to sign in.
    public init(
        uuid: String, serverErrorCode: ServerErrorCode, reason: String, retryAfter: Int? = nil, redirectURL: String? = nil
    ) {
        self.uuid = uuid
        self.serverErrorCode = serverErrorCode
        self.reason = reason
        self.retryAfter = retryAfter
        self.redirectURL = redirectURL
    }

    /// The HTTP status for this body.
    public var httpStatus: Int { serverErrorCode.httpStatus }
}
