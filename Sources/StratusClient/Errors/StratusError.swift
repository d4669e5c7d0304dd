public import StratusWire

/// Every failure the SDK reports: one struct with an open code that mirrors CloudKit's `CKError.Code`.
///
/// Server failures keep what the server said (``serverErrorCode`` as a raw string, ``httpStatus``,
/// ``reason``, ``uuid``, ``retryAfter``), so codes this SDK does not know are never lost.
///
/// ```swift
/// import StratusClient
///
/// func saveKeepingMyTitle(_ note: Record, in database: Database) async throws {
///     do {
///         try await database.save(note)
///     } catch let error as StratusError where error.code == .serverRecordChanged {
///         guard var merged = error.serverRecord else { throw error }  // the server's version, to merge into
///         merged["title"] = note["title"] as String?
///         try await database.save(merged)
///     }
/// }
/// ```
public struct StratusError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, open to new values (like `CKError.Code`).
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public var rawValue: String

        /// Wraps a code name.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The code's name.
        public var description: String { rawValue }

        /// The record changed on the server (`CONFLICT`), or a record to create already exists (`EXISTS`).
        public static let serverRecordChanged = Code(rawValue: "serverRecordChanged")
        /// Some items of a batch failed; see ``StratusError/partialErrors``.
        public static let partialFailure = Code(rawValue: "partialFailure")
        /// The zone does not exist (`ZONE_NOT_FOUND`).
        public static let zoneNotFound = Code(rawValue: "zoneNotFound")
        /// The record (or other item) does not exist (`NOT_FOUND`).
        public static let unknownItem = Code(rawValue: "unknownItem")
        /// No usable account: credentials were rejected or a signed-in user is needed.
        public static let notAuthenticated = Code(rawValue: "notAuthenticated")
        /// The caller may not do this (`ACCESS_DENIED`).
        public static let permissionFailure = Code(rawValue: "permissionFailure")
        /// The storage quota is used up (`QUOTA_EXCEEDED`).
        public static let quotaExceeded = Code(rawValue: "quotaExceeded")
        /// The server throttled the caller (`THROTTLED`); retry after ``StratusError/retryAfter``.
        public static let requestRateLimited = Code(rawValue: "requestRateLimited")
        /// The server is temporarily unavailable (`TRY_AGAIN_LATER`); retry after ``StratusError/retryAfter``.
        public static let serviceUnavailable = Code(rawValue: "serviceUnavailable")
        /// The request was too large (too many operations or bytes); split it.
        public static let limitExceeded = Code(rawValue: "limitExceeded")
        /// The item was not applied because another item of its atomic batch failed (`ATOMIC_ERROR`).
        public static let batchRequestFailed = Code(rawValue: "batchRequestFailed")
        /// There is no network connection.
        public static let networkUnavailable = Code(rawValue: "networkUnavailable")
        /// The network failed or the request ran past its deadline.
        public static let networkFailure = Code(rawValue: "networkFailure")
        /// The sync token is no longer valid; fetch again without a token.
        public static let changeTokenExpired = Code(rawValue: "changeTokenExpired")
        /// The request was malformed or semantically invalid (`BAD_REQUEST`).
        public static let invalidArguments = Code(rawValue: "invalidArguments")
        /// The server rejected the request for a reason this SDK does not know (unknown codes land here).
        public static let serverRejectedRequest = Code(rawValue: "serverRejectedRequest")
        /// The write would break a `VALIDATE` reference (`VALIDATING_REFERENCE_ERROR`).
        public static let referenceViolation = Code(rawValue: "referenceViolation")
        /// The server failed (`INTERNAL_ERROR`).
        public static let internalError = Code(rawValue: "internalError")
        /// The server's answer could not be understood.
        public static let serverResponseLost = Code(rawValue: "serverResponseLost")

        /// Matches an error whose code is `code`: `catch StratusError.Code.unknownItem { … }`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? StratusError)?.code == code
        }
    }

    /// The item a per-item error is about.
    public enum ItemID: Hashable, Sendable {
        /// A record.
        case record(RecordID)
        /// A zone.
        case zone(ZoneID)
    }

    /// What went wrong.
    public var code: Code
    /// A message that names the problem (the server's `reason` when there is one).
    public var message: String
    /// The server's `serverErrorCode`, verbatim (also for codes this SDK does not know).
    public var serverErrorCode: ServerErrorCode?
    /// The HTTP status of the response, when the failure came from one.
    public var httpStatus: Int?
    /// The server's `reason`.
    public var reason: String?
    /// The server's `uuid` for the failure, to quote in bug reports.
    public var uuid: String?
    /// How long to wait before retrying, when the server said so.
    public var retryAfter: Duration?
    /// Where to sign in (with `AUTHENTICATION_REQUIRED`).
    public var redirectURL: String?
    /// The record the error is about.
    public var recordID: RecordID?
    /// The zone the error is about.
    public var zoneID: ZoneID?
    /// With ``Code/serverRecordChanged``: the record as the server has it now (when the server sent it).
    public var serverRecord: Record?
    /// With ``Code/serverRecordChanged``: the record the client tried to save.
    public var clientRecord: Record?
    /// With ``Code/serverRecordChanged``: the record as the client last fetched it.
    public var ancestorRecord: Record?
    /// With ``Code/partialFailure``: the error of each failed item.
    public var partialErrors: [ItemID: StratusError]
    /// The lower-level error (a `URLError`, a `WireError`, …).
    public var underlying: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: A message that names the problem.
    ///   - underlying: The lower-level error.
    public init(_ code: Code, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.partialErrors = [:]
        self.underlying = underlying
    }

    /// Whether retrying the same request later may succeed (throttling, unavailability, network trouble).
    public var isRetryable: Bool {
        switch code {
        case .requestRateLimited, .serviceUnavailable, .networkFailure, .networkUnavailable: true
        default: retryAfter != nil
        }
    }

    /// The error as one line: code, message and the server's code and status when known.
    public var description: String {
        var text = "\(code): \(message)"
        if let serverErrorCode { text += " [\(serverErrorCode)" + (httpStatus.map { " \($0)" } ?? "") + "]" }
        if let retryAfter { text += " (retry after \(retryAfter))" }
        if !partialErrors.isEmpty { text += " (\(partialErrors.count) failed items)" }
        return text
    }
}
