import Foundation
import StratusCrypto
import StratusServerCrypto
import StratusTesting
import Testing

/// The replay identity of a server-to-server signature: one per signing, shared by its malleated twin.
@Suite struct ServerToServerReplayIdentityTests {
    @Test func aSignatureAndItsMalleatedTwinShareOneIdentityAndFreshSignaturesDiffer() throws {
        let key = try P256PrivateKey()
        let message = Data("2026-12-01T15:00:00Z::/database/1/c/development/public/zones/list".utf8)
        var identities: Set<ServerToServerSignature.Identity> = []
        for _ in 0..<20 {
            let signature = try key.signature(for: message)
            let twin = ECDSASignatureTwin.of(signature)
            #expect(key.publicKey.isValidSignature(twin, for: message))
            let identity = try #require(ServerToServerSignature.replayIdentity(ofSignature: signature.base64EncodedString(), keyID: "k"))
            #expect(ServerToServerSignature.replayIdentity(ofSignature: twin.base64EncodedString(), keyID: "k") == identity)
            #expect(ServerToServerSignature.replayIdentity(ofSignature: signature.base64EncodedString(), keyID: "other") != identity)
            identities.insert(identity)
        }
        #expect(identities.count == 20, "each signing draws a fresh nonce, so a fresh r")
    }

    @Test(arguments: ["", "not base64!", "AAAA", Data([0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x01]).base64EncodedString()])
    func somethingThatIsNotADERSignatureHasNoIdentity(_ text: String) {
        #expect(ServerToServerSignature.replayIdentity(ofSignature: text, keyID: "k") == nil)
    }
}
