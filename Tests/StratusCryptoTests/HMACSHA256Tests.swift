import Foundation
import StratusCrypto
import StratusServerCrypto
import Testing

@Suite struct HMACSHA256Tests {
    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var key: Data
        var data: Data
        var expectedHex: String
        var testDescription: String { name }
    }

    static let rfc4231: [Vector] = [
        Vector(
            name: "RFC 4231 test case 1", key: Data(repeating: 0x0b, count: 20), data: Data("Hi There".utf8),
            expectedHex: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Vector(
            name: "RFC 4231 test case 2", key: Data("Jefe".utf8), data: Data("what do ya want for nothing?".utf8),
            expectedHex: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Vector(
            name: "RFC 4231 test case 3", key: Data(repeating: 0xaa, count: 20), data: Data(repeating: 0xdd, count: 50),
            expectedHex: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Vector(
            name: "RFC 4231 test case 4", key: Data((1...25).map { UInt8($0) }), data: Data(repeating: 0xcd, count: 50),
            expectedHex: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        Vector(
            name: "RFC 4231 test case 6", key: Data(repeating: 0xaa, count: 131),
            data: Data("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
            expectedHex: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Vector(
            name: "RFC 4231 test case 7", key: Data(repeating: 0xaa, count: 131),
            data: Data(
                "This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."
                    .utf8),
            expectedHex: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    /// HMAC-SHA256 matches the RFC 4231 test vectors.
    @Test(arguments: rfc4231)
    func matchesRFC4231(vector: Vector) {
        let code = HMACSHA256.authenticationCode(for: vector.data, key: vector.key)
        #expect(code.hex == vector.expectedHex)
        #expect(HMACSHA256.isValidAuthenticationCode(code, for: vector.data, key: vector.key))
    }

    /// RFC 4231 test case 5 checks a tag truncated to 128 bits: its prefix must match.
    @Test func truncatedVectorPrefixMatches() {
        let code = HMACSHA256.authenticationCode(for: Data("Test With Truncation".utf8), key: Data(repeating: 0x0c, count: 20))
        #expect(code.prefix(16).hex == "a3b6167473100ee06e0c796c2955552b")
    }

    /// Empty keys and messages are allowed (RFC 2104 pads the key with zeros).
    @Test func emptyKeyAndMessageWork() {
        // `printf '' | openssl dgst -sha256 -mac HMAC -macopt hexkey:00`
        #expect(
            HMACSHA256.authenticationCode(for: Data(), key: Data()).hex
                == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"
        )
    }

    /// A tag fails for another message, another key, or when truncated or altered.
    @Test func tamperedTagsFail() {
        let key = Data("server secret".utf8)
        let payload = Data("zone=_defaultZone;change=42".utf8)
        let tag = HMACSHA256.authenticationCode(for: payload, key: key)
        #expect(tag.count == HMACSHA256.byteCount)
        #expect(!HMACSHA256.isValidAuthenticationCode(tag, for: Data("zone=_defaultZone;change=43".utf8), key: key))
        #expect(!HMACSHA256.isValidAuthenticationCode(tag, for: payload, key: Data("other secret".utf8)))
        #expect(!HMACSHA256.isValidAuthenticationCode(tag.prefix(16), for: payload, key: key))
        var flipped = tag
        flipped[flipped.startIndex + 31] ^= 0x80
        #expect(!HMACSHA256.isValidAuthenticationCode(flipped, for: payload, key: key))
        #expect(!HMACSHA256.isValidAuthenticationCode(Data(), for: payload, key: key))
    }

    /// A prepared key (``HMACSHA256Key``: the padded key's states hashed once) gives the RFC 4231 codes too.
    @Test(arguments: rfc4231)
    func aPreparedKeyGivesTheSameCodesAsOneShotHMAC(vector: Vector) {
        let key = HMACSHA256Key(vector.key)
        let code = key.authenticationCode(for: vector.data)
        #expect(code.hex == vector.expectedHex)
        #expect(key.isValidAuthenticationCode(code, for: vector.data))
        var flipped = code
        flipped[flipped.startIndex + 7] ^= 0x01
        #expect(!key.isValidAuthenticationCode(flipped, for: vector.data))
        #expect(!key.isValidAuthenticationCode(code.prefix(31), for: vector.data))
        #expect(!key.isValidAuthenticationCode(code, for: vector.data + Data([0])))
    }

    /// A prepared key is reusable: codes of many messages, each the one-shot HMAC's, the empty key and message included.
    @Test func aPreparedKeyKeepsGivingTheOneShotCodes() {
        for keyLength in [0, 1, 32, 64, 65, 200] {
            let secret = Data((0..<keyLength).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            let key = HMACSHA256Key(secret)
            for messageLength in [0, 1, 55, 56, 57, 64, 120, 1000] {
                let message = Data((0..<messageLength).map { UInt8(truncatingIfNeeded: $0 &* 13) })
                #expect(
                    key.authenticationCode(for: message) == HMACSHA256.authenticationCode(for: message, key: secret),
                    "key \(keyLength), message \(messageLength)")
            }
        }
    }
}
