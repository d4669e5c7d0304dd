import Foundation
import StratusCrypto
import StratusServerCrypto
import Testing

/// ES256 signatures in the JWS form (`r ‖ s`, 64 bytes) that APNs provider tokens use.
@Suite struct JWSSignatureTests {
    @Test func rawSignatureIsSixtyFourBytesAndVerifies() throws {
        let key = try P256PrivateKey()
        let message = Data("header.claims".utf8)
        for _ in 0..<20 {
            let signature = try key.rawSignature(for: message)
            #expect(signature.count == 64)
            #expect(key.publicKey.isValidRawSignature(signature, for: message))
            #expect(!key.publicKey.isValidRawSignature(signature, for: Data("header.claimz".utf8)))
        }
    }

    @Test func malformedRawSignaturesAreFalseNotCrashes() throws {
        let key = try P256PrivateKey()
        let message = Data("m".utf8)
        let good = try key.rawSignature(for: message)
        for bad in [Data(), Data(count: 63), Data(count: 65), Data(count: 64), Data(repeating: 0xFF, count: 64), good.prefix(32) + good.prefix(32)] {
            #expect(!key.publicKey.isValidRawSignature(bad, for: message))
        }
        // The DER form is not accepted where r ‖ s is expected.
        #expect(!key.publicKey.isValidRawSignature(try key.signature(for: message), for: message))
    }
}
