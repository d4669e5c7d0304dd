import Foundation
import StratusClient
import StratusWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite struct ErrorMappingTests {
    /// Every documented server code (and the CloudKit JS extras) maps to the CloudKit-like code.
    @Test(arguments: [
        ("ACCESS_DENIED", 403, StratusError.Code.permissionFailure),
        ("ATOMIC_ERROR", 400, .batchRequestFailed),
        ("AUTHENTICATION_FAILED", 401, .notAuthenticated),
        ("AUTHENTICATION_REQUIRED", 421, .notAuthenticated),
        ("BAD_REQUEST", 400, .invalidArguments),
        ("CONFLICT", 409, .serverRecordChanged),
        ("EXISTS", 409, .serverRecordChanged),
        ("INTERNAL_ERROR", 500, .internalError),
        ("NOT_FOUND", 404, .unknownItem),
        ("QUOTA_EXCEEDED", 413, .quotaExceeded),
        ("THROTTLED", 429, .requestRateLimited),
        ("TRY_AGAIN_LATER", 503, .serviceUnavailable),
        ("VALIDATING_REFERENCE_ERROR", 412, .referenceViolation),
        ("ZONE_NOT_FOUND", 404, .zoneNotFound),
        ("SERVICE_UNAVAILABLE", 503, .serviceUnavailable),
        ("INVALID_ARGUMENTS", 400, .invalidArguments),
        ("LIMIT_EXCEEDED", 400, .limitExceeded),
        ("UNIQUE_FIELD_ERROR", 409, .serverRecordChanged),
        ("NETWORK_ERROR", 0, .networkFailure),
        ("SOMETHING_NEW", 418, .serverRejectedRequest),
    ])
    func serverCodesMapToClientCodes(serverCode: String, status: Int, expected: StratusError.Code) {
        let response = ErrorResponse(uuid: "u-1", serverErrorCode: ServerErrorCode(rawValue: serverCode), reason: "why", retryAfter: 3)
        let error = StratusError(response, httpStatus: status)
        #expect(error.code == expected)
        #expect(error.serverErrorCode?.rawValue == serverCode, "the raw code is kept")
        #expect(error.httpStatus == status)
        #expect(error.reason == "why")
        #expect(error.uuid == "u-1")
        #expect(error.retryAfter == .seconds(3))
    }

    /// The documented codes agree with Apple's HTTP status table when only a status is known.
    @Test func bareStatusesMapLikeTheirCodes() {
        for code in ServerErrorCode.documented where code != .atomicError && code != .badRequest {
            let byStatus = StratusError.Code(serverErrorCode: nil, httpStatus: code.httpStatus)
            let byCode = StratusError.Code(serverErrorCode: code, httpStatus: code.httpStatus)
            if code == .zoneNotFound || code == .exists || code == .authenticationRequired || code == .internalError
                || code == .quotaExceeded
            {
                continue  // statuses shared with another code, 500's catch-all, and 413 (see below)
            }
            #expect(byStatus == byCode, "\(code)")
        }
        #expect(StratusError.Code(serverErrorCode: nil, httpStatus: 502) == .serviceUnavailable)
        #expect(StratusError.Code(serverErrorCode: nil, httpStatus: 500) == .serverRejectedRequest)
        // A bare 413 is a body too large for a proxy or the server, not a quota: split the request.
        #expect(StratusError.Code(serverErrorCode: nil, httpStatus: 413) == .limitExceeded)
    }

    /// A BAD_REQUEST that says the batch had too many operations is limitExceeded.
    @Test(arguments: [
        ("a request may carry at most 200 operations; this one has 201", true),
        ("too many operations in request", true),
        ("Invalid value, expected type TIMESTAMP", false),
    ])
    func tooManyOperationsIsLimitExceeded(reason: String, isLimit: Bool) {
        let code = StratusError.Code(serverErrorCode: .badRequest, httpStatus: 400, reason: reason)
        #expect(code == (isLimit ? .limitExceeded : .invalidArguments))
    }

    /// Per-record CONFLICT errors carry the server's record from the serverRecord extension key.
    @Test func recordConflictCarriesServerRecord() throws {
        let wire = try WireCoding.decode(
            RecordFetchError.self,
            from: Data(
                #"{"recordName":"n1","serverErrorCode":"CONFLICT","reason":"stale","uuid":"u","serverRecord":{"recordName":"n1","recordType":"Note","recordChangeTag":"9","fields":{"title":{"value":"server","type":"STRING"}}}}"#
                    .utf8))
        var client = Record(recordType: "Note", recordID: RecordID(recordName: "n1"))
        client["title"] = "client"
        let error = StratusError(wire, recordID: client.recordID, clientRecord: client)
        #expect(error.code == .serverRecordChanged)
        #expect(error.serverRecord?["title"] == "server")
        #expect(error.serverRecord?.recordChangeTag == "9")
        #expect(error.clientRecord?["title"] == "client")
        #expect(error.ancestorRecord == nil, "a never-fetched record has no ancestor")
        #expect(error.recordID == client.recordID)
    }

    /// Transport errors: no connection is networkUnavailable, others networkFailure; cancellation is not an error.
    @Test func networkFailuresMapToNetworkCodesAndCancellationIsNotAnError() async throws {
        let cases: [(any Error, StratusError.Code?)] = [
            (URLError(.notConnectedToInternet), .networkUnavailable),
            (URLError(.timedOut), .networkFailure),
            (URLError(.cannotConnectToHost), .networkFailure),
            (URLError(.cancelled), nil),
            (CancellationError(), nil),
        ]
        for (thrown, expected) in cases {
            let transport = FakeTransport { _, _ in throw thrown }
            var configuration = ClientConfiguration.fastTests
            configuration.retryPolicy = .never
            let container = Container(
                identifier: "iCloud.x", environment: .development, serverURL: URL(string: "http://127.0.0.1:1")!,
                authentication: .none, configuration: configuration, transport: transport)
            do {
                _ = try await container.privateCloudDatabase.allRecordZones()
                Issue.record("expected a failure for \(thrown)")
            } catch let error as StratusError {
                #expect(error.code == expected, "\(thrown)")
            } catch {
                #expect(expected == nil && error is CancellationError, "\(thrown) → \(error)")
            }
        }
    }

    /// A non-CloudKit error body (a proxy's HTML) falls back on the HTTP status and keeps it.
    @Test func nonCloudKitBodiesFallBackOnStatus() async throws {
        let transport = FakeTransport(status: 502, json: "<html>bad gateway</html>")
        var configuration = ClientConfiguration.fastTests
        configuration.retryPolicy = .never
        let container = Container(
            identifier: "iCloud.x", environment: .development, serverURL: URL(string: "http://127.0.0.1:1")!,
            authentication: .none, configuration: configuration, transport: transport)
        let error = try await #require(throws: StratusError.self) { try await container.privateCloudDatabase.allRecordZones() }
        #expect(error.code == .serviceUnavailable)
        #expect(error.httpStatus == 502)
        #expect(error.serverErrorCode == nil)
    }
}
