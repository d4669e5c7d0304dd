import Foundation
public import StratusWire

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StratusError.Code {
    /// The code for a server's `serverErrorCode` and HTTP status (Apple's CloudKit Web Services Reference: “serverErrorCode values”).
    ///
    /// Documented codes map one to one; the codes CloudKit JS adds (`SERVICE_UNAVAILABLE`,
    /// `INVALID_ARGUMENTS`, `LIMIT_EXCEEDED`, …) are understood too; a `BAD_REQUEST` that says a
    /// request carried too many operations is ``limitExceeded``. Anything else falls back on the
    /// HTTP status, then on ``serverRejectedRequest``.
    ///
    /// - Parameters:
    ///   - serverErrorCode: The server's code, if the body had one.
    ///   - httpStatus: The response status, if known (per-item errors arrive with 200).
    ///   - reason: The server's reason, used to recognise batch-size rejections.
    public init(serverErrorCode: ServerErrorCode?, httpStatus: Int?, reason: String? = nil) {
        switch serverErrorCode?.rawValue {
        case "CONFLICT", "EXISTS", "UNIQUE_FIELD_ERROR": self = .serverRecordChanged
        case "NOT_FOUND": self = .unknownItem
        case "ZONE_NOT_FOUND": self = .zoneNotFound
        case "ACCESS_DENIED": self = .permissionFailure
        case "AUTHENTICATION_FAILED", "AUTHENTICATION_REQUIRED": self = .notAuthenticated
        case "QUOTA_EXCEEDED": self = .quotaExceeded
        case "THROTTLED": self = .requestRateLimited
        case "TRY_AGAIN_LATER", "SERVICE_UNAVAILABLE": self = .serviceUnavailable
        case "ATOMIC_ERROR": self = .batchRequestFailed
        case "VALIDATING_REFERENCE_ERROR": self = .referenceViolation
        case "INTERNAL_ERROR": self = .internalError
        case "LIMIT_EXCEEDED": self = .limitExceeded
        case "NETWORK_ERROR": self = .networkFailure
        case "INVALID_ARGUMENTS": self = .invalidArguments
        case "BAD_REQUEST": self = Self.saysTooManyOperations(reason) ? .limitExceeded : .invalidArguments
        case .some: self = .serverRejectedRequest
        case nil: self = Self(httpStatus: httpStatus)
        }
    }

    private init(httpStatus: Int?) {
        switch httpStatus {
        case 400: self = .invalidArguments
        case 401, 421: self = .notAuthenticated
        case 403: self = .permissionFailure
        case 404: self = .unknownItem
        case 409: self = .serverRecordChanged
        case 412: self = .referenceViolation
        case 413: self = .limitExceeded
        case 429: self = .requestRateLimited
        case 502, 503, 504: self = .serviceUnavailable
        default: self = .serverRejectedRequest
        }
    }

    /// Whether a `BAD_REQUEST` reason says the batch was too big ("at most 200 operations", "too many operations").
    static func saysTooManyOperations(_ reason: String?) -> Bool {
        guard let reason = reason?.lowercased(), reason.contains("operations") else { return false }
        return reason.contains("at most") || reason.contains("too many") || reason.contains("limit")
    }
}

extension StratusError {
    /// Creates the error a whole-request failure (a non-2xx response) stands for.
    ///
    /// - Parameters:
    ///   - response: The decoded error body.
    ///   - httpStatus: The response status.
    public init(_ response: ErrorResponse, httpStatus: Int) {
        let code = Code(serverErrorCode: response.serverErrorCode, httpStatus: httpStatus, reason: response.reason)
        self.init(code, response.reason)
        serverErrorCode = response.serverErrorCode
        self.httpStatus = httpStatus
        reason = response.reason
        uuid = response.uuid
        retryAfter = response.retryAfter.map { .seconds($0) }
        redirectURL = response.redirectURL
    }

    /// Creates the error of one record in a batch response.
    ///
    /// `CONFLICT` and `EXISTS` carry the server's record when the server sent it (the Stratus
    /// `serverRecord` extension), and the client and ancestor records when the caller knows them.
    ///
    /// - Parameters:
    ///   - error: The record fetch error dictionary.
    ///   - recordID: The record the error is about.
    ///   - clientRecord: The record the client tried to save, if any.
    public init(_ error: RecordFetchError, recordID: RecordID?, clientRecord: Record? = nil) {
        let code = Code(serverErrorCode: error.serverErrorCode, httpStatus: nil, reason: error.reason)
        self.init(code, error.reason ?? "record '\(recordID?.recordName ?? "?")' failed with \(error.serverErrorCode)")
        serverErrorCode = error.serverErrorCode
        reason = error.reason
        uuid = error.uuid
        retryAfter = error.retryAfter.map { .seconds($0) }
        redirectURL = error.redirectURL
        self.recordID = recordID
        if code == .serverRecordChanged {
            if let wire = error.serverRecord, let id = recordID ?? wire.recordName.map({ RecordID(recordName: $0) }),
                let type = wire.recordType ?? clientRecord?.recordType
            {
                serverRecord = Record(wire: wire, recordID: id, recordType: type)
            }
            self.clientRecord = clientRecord
            ancestorRecord = clientRecord?.ancestor
        }
    }

    /// Creates the error of one zone in a batch response.
    ///
    /// - Parameters:
    ///   - error: The zone fetch error dictionary.
    ///   - zoneID: The zone the error is about, when the dictionary does not name it.
    public init(_ error: ZoneFetchError, zoneID: ZoneID?) {
        let code = Code(serverErrorCode: error.serverErrorCode, httpStatus: nil, reason: error.reason)
        let zone = error.zoneID ?? zoneID
        self.init(code, error.reason ?? "zone '\(zone?.zoneName ?? "?")' failed with \(error.serverErrorCode)")
        serverErrorCode = error.serverErrorCode
        reason = error.reason
        retryAfter = error.retryAfter.map { .seconds($0) }
        redirectURL = error.redirectURL
        self.zoneID = zone
    }

    /// Creates the error a transport failure stands for; `nil` when it is a cancellation.
    ///
    /// - Parameter error: What the transport threw.
    /// - Returns: ``Code/networkUnavailable`` without a connection, ``Code/networkFailure`` otherwise.
    static func transport(_ error: any Error) -> StratusError? {
        if error is CancellationError { return nil }
        if let stratus = error as? StratusError { return stratus }
        if let urlError = error as? URLError {
            switch urlError.code {
            case .cancelled: return nil
            case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff:
                return StratusError(.networkUnavailable, "no network connection: \(urlError.localizedDescription)", underlying: urlError)
            case .timedOut:
                return StratusError(.networkFailure, "the request ran past its deadline", underlying: urlError)
            default:
                return StratusError(.networkFailure, "the request failed: \(urlError.localizedDescription)", underlying: urlError)
            }
        }
        return StratusError(.networkFailure, "the request failed: \(error)", underlying: error)
    }

    /// Wraps per-item failures of a batch into one ``Code/partialFailure``.
    static func partialFailure(_ errors: [ItemID: StratusError]) -> StratusError {
        var error = StratusError(.partialFailure, "\(errors.count) items of the batch failed")
        error.partialErrors = errors
        return error
    }
}
