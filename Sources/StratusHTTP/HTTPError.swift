import Foundation

/// An error that knows which HTTP response describes it.
///
/// Handlers throw these; the ``Router`` renders them. Any other error becomes a
/// 500 `INTERNAL_ERROR` whose body reveals nothing but the request ID.
public protocol HTTPResponseError: Error {
    /// The response to send for this error.
    ///
    /// - Parameter requestID: The request's ID, echoed as `uuid` in CloudKit error bodies.
    func response(requestID: String) -> HTTPResponse
}

/// A whole-request failure rendered as a CloudKit error body: the one renderer of every error
/// response, the service's `ServiceError` included.
///
/// The body is `{"uuid", "serverErrorCode", "reason"[, "retryAfter"][, "redirectURL"]}` as in
/// CloudKit Web Services (Apple's CloudKit Web Services Reference: “Shapes”), with a `Retry-After`
/// header when it says when to retry. The code is a string because this layer knows nothing of
/// the wire model (`StratusWire`); the service passes its typed `ServerErrorCode`'s raw value, and
/// `StratusHTTPTests` checks that every code used here is one of those
/// (Documentation/0021-endpoint-groups.md).
///
/// ```swift
/// throw HTTPError.badRequest("missing key 'operations'")
/// ```
public struct HTTPError: HTTPResponseError, Equatable, CustomStringConvertible {
    /// The HTTP status.
    public var status: HTTPStatus
    /// The CloudKit `serverErrorCode`, such as `BAD_REQUEST`.
    public var serverErrorCode: String
    /// What went wrong, in words that name the problem.
    public var reason: String
    /// Seconds after which a retry may succeed; `nil` when retrying will not help.
    public var retryAfter: Int?
    /// Where to sign in, with `AUTHENTICATION_REQUIRED`.
    public var redirectURL: String?
    /// Extra response headers, such as `Allow` on a 405.
    public var headers: HTTPHeaders

    /// Creates an error.
    public init(
        status: HTTPStatus, serverErrorCode: String, reason: String, retryAfter: Int? = nil,
        redirectURL: String? = nil, headers: HTTPHeaders = [:]
    ) {
        self.status = status
        self.serverErrorCode = serverErrorCode
        self.reason = reason
        self.retryAfter = retryAfter
        self.redirectURL = redirectURL
        self.headers = headers
    }

    /// 400 `BAD_REQUEST` with `reason`.
    public static func badRequest(_ reason: String) -> HTTPError {
        HTTPError(status: .badRequest, serverErrorCode: "BAD_REQUEST", reason: reason)
    }

    /// 404 `NOT_FOUND` with CloudKit's reason for an unknown path.
    public static let endpointNotFound = HTTPError(
        status: .notFound, serverErrorCode: "NOT_FOUND", reason: "could not find handler for endpoint"
    )

    /// 405 naming the method used and the methods the endpoint accepts.
    public static func methodNotAllowed(_ method: HTTPMethod, allowed: [HTTPMethod]) -> HTTPError {
        let names = allowed.map(\.rawValue).sorted().joined(separator: ", ")
        return HTTPError(
            status: .methodNotAllowed, serverErrorCode: "BAD_REQUEST",
            reason: "method \(method) is not allowed for this endpoint; allowed: \(names)",
            headers: ["Allow": names]
        )
    }

    /// 413 for a body over `limit` bytes.
    public static func bodyTooLarge(limit: Int) -> HTTPError {
        HTTPError(
            status: .contentTooLarge, serverErrorCode: "BAD_REQUEST",
            reason: "request body is larger than the limit of \(limit) bytes"
        )
    }

    /// 503 `TRY_AGAIN_LATER` when the server already holds as many request bodies in memory as it may.
    public static let tooManyBodies = HTTPError(
        status: .serviceUnavailable, serverErrorCode: "TRY_AGAIN_LATER",
        reason: "the server is holding as many request bodies as it may; retry shortly", retryAfter: 1
    )

    /// 500 `INTERNAL_ERROR` with a reason that reveals nothing internal.
    public static let internalError = HTTPError(
        status: .internalServerError, serverErrorCode: "INTERNAL_ERROR",
        reason: "internal server error; quote the uuid when reporting it"
    )

    /// 503 `TRY_AGAIN_LATER` while the server shuts down.
    public static let shuttingDown = HTTPError(
        status: .serviceUnavailable, serverErrorCode: "TRY_AGAIN_LATER", reason: "the server is shutting down",
        retryAfter: 1
    )

    /// `BAD_REQUEST: reason (HTTP 400)`.
    public var description: String { "\(serverErrorCode): \(reason) (HTTP \(status.code))" }

    /// The CloudKit error body for this error.
    public func response(requestID: String) -> HTTPResponse {
        let body = Body(uuid: requestID, serverErrorCode: serverErrorCode, reason: reason, retryAfter: retryAfter, redirectURL: redirectURL)
        var response = HTTPResponse(status: status, headers: headers)
        response.headers.replaceOrAdd("Content-Type", "application/json; charset=utf-8")
        response.body = (try? HTTPResponse.defaultEncoder.encode(body)) ?? Self.unencodableBody
        // Plain HTTP clients and proxies understand the header; CloudKit clients read `retryAfter`.
        if let retryAfter { response.headers.replaceOrAdd("Retry-After", String(retryAfter)) }
        return response
    }

    /// What is sent should a body not encode (a reason with unpaired surrogates, say).
    private static let unencodableBody = Data(#"{"reason":"internal server error","serverErrorCode":"INTERNAL_ERROR"}"#.utf8)

    /// The encoded body (keys sorted, as every response of the service).
    private struct Body: Encodable {
        var uuid: String
        var serverErrorCode: String
        var reason: String
        var retryAfter: Int?
        var redirectURL: String?
    }
}
