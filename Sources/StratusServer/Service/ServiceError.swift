public import StratusHTTP
public import StratusWire

/// A CloudKit error raised by the service: a `serverErrorCode` and a reason that names the problem.
///
/// Thrown from a whole-request handler it renders as the request-level error
/// body with the code's HTTP status; inside a batch it becomes that item's
/// error dictionary.
///
/// ```swift
/// throw ServiceError.badRequest("resultsLimit must be from 1 to 200; got 500")
/// ```
public struct ServiceError: Error, HTTPResponseError, Hashable, CustomStringConvertible {
    /// The CloudKit code.
    public var code: ServerErrorCode
    /// What went wrong, naming the record, zone or field.
    public var reason: String
    /// Seconds after which a retry may succeed.
    public var retryAfter: Int?
    /// Where to sign in, with `AUTHENTICATION_REQUIRED`.
    public var redirectURL: String?
    /// With `CONFLICT` and `EXISTS`: the record as the server has it, returned to the client.
    var serverRecord: Record?

    /// Creates an error.
    public init(_ code: ServerErrorCode, _ reason: String, retryAfter: Int? = nil, redirectURL: String? = nil) {
        self.code = code
        self.reason = reason
        self.retryAfter = retryAfter
        self.redirectURL = redirectURL
    }

    /// `BAD_REQUEST` with `reason`.
    public static func badRequest(_ reason: String) -> ServiceError { ServiceError(.badRequest, reason) }

    /// `CODE: reason`.
    public var description: String { "\(code.rawValue): \(reason)" }

    /// The request-level CloudKit error body with the code's HTTP status (rendered by ``HTTPError``).
    public func response(requestID: String) -> HTTPResponse {
        HTTPError(
            status: HTTPStatus(code: code.httpStatus), serverErrorCode: code.rawValue, reason: reason, retryAfter: retryAfter,
            redirectURL: redirectURL
        ).response(requestID: requestID)
    }

    /// This error as one item of a `records` array.
    func recordError(recordName: String?, uuid: String) -> RecordFetchError {
        RecordFetchError(
            recordName: recordName, serverErrorCode: code, reason: reason, retryAfter: retryAfter, uuid: uuid,
            redirectURL: redirectURL, serverRecord: serverRecord
        )
    }

    /// This error carrying the server's copy of the record.
    func with(serverRecord record: StoredRecord, zone: ZoneRow) -> ServiceError {
        var error = self
        error.serverRecord = RecordPresenter.wire(record, zone: zone, desiredKeys: nil)
        return error
    }

    /// This error as one item of a `zones` array.
    func zoneError(_ zoneID: ZoneID) -> ZoneFetchError {
        ZoneFetchError(zoneID: zoneID, serverErrorCode: code, reason: reason, retryAfter: retryAfter, redirectURL: redirectURL)
    }
}

extension ServiceError {
    /// The error for a record that does not exist in a zone, or that the caller may not read:
    /// both look the same, so no answer reveals that a hidden record exists.
    static func recordNotFound(_ name: String, zoneName: String) -> ServiceError {
        ServiceError(.notFound, "record '\(name)' does not exist in zone '\(zoneName)'")
    }
}
