import Foundation
import StratusCrypto
import Testing

@Suite struct CryptoErrorTests {
    /// Codes are open: unknown raw values survive, known constants compare by raw value.
    @Test func codesAreOpen() {
        #expect(CryptoError.Code(rawValue: "invalidPEM") == .invalidPEM)
        #expect(CryptoError.Code(rawValue: "somethingNew").rawValue == "somethingNew")
        #expect(CryptoError.Code.invalidKey.description == "invalidKey")
    }

    /// `~=` lets a switch or catch match an error by code.
    @Test func patternMatchesByCode() {
        let error: any Error = CryptoError(code: .invalidPEM, message: "no block")
        switch error {
        case CryptoError.Code.invalidKey: Issue.record("matched the wrong code")
        case CryptoError.Code.invalidPEM: break
        default: Issue.record("did not match")
        }
        #expect(!(CryptoError.Code.invalidPEM ~= (CancellationError() as any Error)))
    }

    /// The description shows the code, the message and OpenSSL's text.
    @Test func descriptionNamesCodeMessageAndOpenSSLText() {
        let plain = CryptoError(code: .randomFailed, message: "RAND_bytes failed")
        #expect(plain.description == "CryptoError(randomFailed): RAND_bytes failed")
        let withQueue = CryptoError(
            code: .invalidPEM, message: "bad", openSSLErrors: ["error:1E08010C:DECODER routines::unsupported"])
        #expect(withQueue.description.contains("[OpenSSL: error:1E08010C:DECODER routines::unsupported]"))
    }
}
