import Foundation
import StratusCrypto
import Testing

/// The replay identity of a server-to-server signature: one per signing, shared by its malleated twin.
@Suite struct ServerToServerReplayIdentityTests {
    /// `(r, n − s)` for a DER `(r, s)` over P-256.
    static func twin(_ der: Data) -> Data {
        let order: [UInt8] = [
            0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
            0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
        ]
        let bytes = [UInt8](der)
        let rLength = Int(bytes[3])
        let r = Array(bytes[4..<(4 + rLength)])
        let s = Array(bytes[(6 + rLength)...].drop { $0 == 0 })
        var value = [UInt8](repeating: 0, count: 32 - s.count) + s
        var borrow = 0
        for index in (0..<32).reversed() {
            let difference = Int(order[index]) - Int(value[index]) - borrow
            value[index] = UInt8((difference + 256) % 256)
            borrow = difference < 0 ? 1 : 0
        }
        var twin = Array(value.drop { $0 == 0 })
        if let first = twin.first, first >= 0x80 { twin.insert(0, at: 0) }
        let body = [0x02, UInt8(r.count)] + r + [0x02, UInt8(twin.count)] + twin
        return Data([0x30, UInt8(body.count)] + body)
    }

    @Test func aSignatureAndItsMalleatedTwinShareOneIdentityAndFreshSignaturesDiffer() throws {
        let key = try P256PrivateKey()
        let message = Data("2026-12-01T15:00:00Z::/database/1/c/development/public/zones/list".utf8)
        var identities: Set<ServerToServerSignature.Identity> = []
        for _ in 0..<20 {
            let signature = try key.signature(for: message)
            let twin = Self.twin(signature)
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
