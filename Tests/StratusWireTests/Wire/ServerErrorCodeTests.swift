import Foundation
import StratusWire
import Testing

@Suite struct ServerErrorCodeTests {
    /// Every documented code maps to Apple's HTTP status.
    @Test(arguments: [
        ("ACCESS_DENIED", 403), ("ATOMIC_ERROR", 400), ("AUTHENTICATION_FAILED", 401),
        ("AUTHENTICATION_REQUIRED", 421), ("BAD_REQUEST", 400), ("CONFLICT", 409), ("EXISTS", 409),
        ("INTERNAL_ERROR", 500), ("NOT_FOUND", 404), ("QUOTA_EXCEEDED", 413), ("THROTTLED", 429),
        ("TRY_AGAIN_LATER", 503), ("VALIDATING_REFERENCE_ERROR", 412), ("ZONE_NOT_FOUND", 404),
    ])
    func documentedCodeMapsToItsStatus(name: String, status: Int) throws {
        let code = ServerErrorCode(rawValue: name)
        #expect(code.httpStatus == status)
        #expect(code.isDocumented)
        #expect(ServerErrorCode.documented.contains(code))
        #expect(try WireCoding.encodeJSON(code) == .string(name))
    }

    /// The documented list has exactly the 14 codes.
    @Test func documentedListHasFourteenCodes() {
        #expect(ServerErrorCode.documented.count == 14)
        #expect(Set(ServerErrorCode.documented).count == 14)
    }

    /// An unknown code is kept verbatim and maps to 500.
    @Test func unknownCodeIsKept() throws {
        let error = try WireCoding.decode(
            RecordFetchError.self, from: Data(#"{"recordName":"a","serverErrorCode":"UNIQUE_FIELD_ERROR"}"#.utf8))
        #expect(error.serverErrorCode.rawValue == "UNIQUE_FIELD_ERROR")
        #expect(!error.serverErrorCode.isDocumented)
        #expect(error.serverErrorCode.httpStatus == 500)
        #expect(try WireCoding.encodeJSON(error)["serverErrorCode"] == "UNIQUE_FIELD_ERROR")
    }

    /// Only THROTTLED and TRY_AGAIN_LATER are blindly retryable.
    @Test func onlyThrottlingCodesAreRetryable() {
        let retryable = ServerErrorCode.documented.filter(\.isRetryable)
        #expect(retryable == [.throttled, .tryAgainLater])
    }

    /// Open sharing enums keep unknown values instead of rejecting them.
    @Test func openEnumsKeepUnknownValues() throws {
        let participant = try WireCoding.decode(
            ShareParticipant.self, from: Data(#"{"permission":"READ_SOMETIMES","type":"ROBOT","acceptanceStatus":"PENDING"}"#.utf8))
        #expect(participant.permission?.rawValue == "READ_SOMETIMES")
        #expect(participant.type?.rawValue == "ROBOT")
        #expect(participant.acceptanceStatus?.rawValue == "PENDING")
    }
}
