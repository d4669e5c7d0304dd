import Foundation
import StratusCrypto
@testable import StratusServerCrypto
import Testing

/// XChaCha20-Poly1305 sealing and the HKDF-SHA256 key derivation behind it.
@Suite struct SealingKeyTests {
    /// draft-irtf-cfrg-xchacha-03, appendix A.3.1 (also computed independently from HChaCha20 and
    /// ChaCha20-Poly1305-IETF with Python's `cryptography`).
    @Test func sealingMatchesTheXChaCha20Poly1305TestVector() throws {
        let key = try SealingKey(rawKey: Data((0x80...0x9f).map { UInt8($0) }))
        let nonce = (0x40...0x57).map { UInt8($0) }
        let message = Data("Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the future, sunscreen would be it.".utf8)
        let associated = Data(hex: "50515253c0c1c2c3c4c5c6c7")
        let box = key.seal(message, associatedData: associated, nonce: nonce)
        let expected =
            "bd6d179d3e83d43b9576579493c0e939572a1700252bfaccbed2902c21396cbb731c7f1b0b4aa6440bf3a82f4eda7e39ae64c6708c54c216cb96b72e1213b452"
            + "2f8c9ba40db5d945b11b69b982c1bb9e3f3fac2bc369488f76b2383565d3fff921f9664c97637da9768812f615c68b13b52e" + "c0875924c1c7987947deafd8780acf49"
        #expect(box.prefix(SealingKey.nonceByteCount) == Data(nonce))
        #expect(box.dropFirst(SealingKey.nonceByteCount).hex == expected)
        #expect(try key.open(box, associatedData: associated) == message)
    }

    @Test(arguments: [0, 1, 15, 16, 17, 1000])
    func aBoxOpensToItsMessageAndIsFortyBytesLonger(length: Int) throws {
        let key = SealingKey(derivingFrom: Data(repeating: 7, count: 32), label: "test")
        let message = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let box = key.seal(message)
        #expect(box.count == length + SealingKey.overhead)
        #expect(try key.open(box) == message)
        if length >= 16 { #expect(box.range(of: message) == nil, "the message is readable in the box") }
    }

    @Test func everySealUsesAFreshNonce() {
        let key = SealingKey(derivingFrom: Data(repeating: 7, count: 32), label: "test")
        let boxes = Set((0..<200).map { _ in key.seal(Data("same position".utf8)) })
        #expect(boxes.count == 200)
    }

    @Test func deterministicSealingGivesEqualBoxesForEqualMessagesOnly() throws {
        let key = SealingKey(derivingFrom: Data(repeating: 7, count: 32), label: "test")
        let box = key.sealDeterministically(Data("position 17".utf8), associatedData: Data([2]))
        #expect(key.sealDeterministically(Data("position 17".utf8), associatedData: Data([2])) == box)
        #expect(try key.open(box, associatedData: Data([2])) == Data("position 17".utf8))
        let others = [
            key.sealDeterministically(Data("position 18".utf8), associatedData: Data([2])),
            key.sealDeterministically(Data("position 17".utf8), associatedData: Data([3])),
            key.sealDeterministically(Data([2]) + Data("position 17".utf8)),
            SealingKey(derivingFrom: Data(repeating: 7, count: 32), label: "other").sealDeterministically(Data("position 17".utf8), associatedData: Data([2])),
        ]
        for other in others {
            #expect(other.prefix(SealingKey.nonceByteCount) != box.prefix(SealingKey.nonceByteCount))
        }
        #expect(box.count == "position 17".utf8.count + SealingKey.overhead)
    }

    @Test func anAlteredOrTruncatedBoxDoesNotOpen() throws {
        let key = SealingKey(derivingFrom: Data(repeating: 7, count: 32), label: "test")
        let box = key.seal(Data(#"{"c":{"recordName":"hidden"}}"#.utf8), associatedData: Data([2, 3]))
        for index in box.indices {
            var altered = box
            altered[index] ^= 0x01
            #expect(throws: CryptoError.self) { try key.open(altered, associatedData: Data([2, 3])) }
        }
        for length in [0, 1, SealingKey.overhead - 1, SealingKey.overhead, box.count - 1] {
            #expect(throws: CryptoError.self) { try key.open(box.prefix(length), associatedData: Data([2, 3])) }
        }
        #expect(throws: CryptoError.self) { try key.open(box + Data([0]), associatedData: Data([2, 3])) }
        do {
            _ = try key.open(box.dropLast(), associatedData: Data([2, 3]))
        } catch let error as CryptoError {
            #expect(error.code == .authenticationFailed)
        }
    }

    @Test func aBoxOpensOnlyWithItsKeyAndAssociatedData() throws {
        let secret = Data(repeating: 7, count: 32)
        let key = SealingKey(derivingFrom: secret, label: "zone sync")
        let box = key.seal(Data("position".utf8), associatedData: Data([1]))
        #expect(try SealingKey(derivingFrom: secret, label: "zone sync").open(box, associatedData: Data([1])) == Data("position".utf8))
        #expect(throws: CryptoError.self) { try SealingKey(derivingFrom: secret, label: "query continuation").open(box, associatedData: Data([1])) }
        #expect(throws: CryptoError.self) {
            try SealingKey(derivingFrom: Data(repeating: 8, count: 32), label: "zone sync").open(box, associatedData: Data([1]))
        }
        #expect(throws: CryptoError.self) { try key.open(box, associatedData: Data([2])) }
        #expect(throws: CryptoError.self) { try key.open(box) }
    }

    @Test func rawKeysMustHave32Bytes() throws {
        for length in [0, 16, 31, 33, 64] {
            #expect(throws: CryptoError.self) { try SealingKey(rawKey: Data(count: length)) }
        }
        _ = try SealingKey(rawKey: Data(count: 32))
        #expect("\(SealingKey(derivingFrom: Data("s".utf8), label: "x"))" == "SealingKey(<secret>)")
    }

    /// RFC 5869, appendix A.1 and A.3 (checked with `openssl kdf … HKDF`).
    @Test func hkdfMatchesTheRFC5869TestVectors() {
        let ikm = Data(repeating: 0x0b, count: 22)
        let first = HKDFSHA256.deriveKey(from: ikm, salt: Data(hex: "000102030405060708090a0b0c"), info: Data(hex: "f0f1f2f3f4f5f6f7f8f9"), byteCount: 42)
        #expect(first.hex == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
        let third = HKDFSHA256.deriveKey(from: ikm, info: Data(), byteCount: 42)
        #expect(third.hex == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
        #expect(HKDFSHA256.deriveKey(from: ikm, info: Data("a".utf8), byteCount: 32) != HKDFSHA256.deriveKey(from: ikm, info: Data("b".utf8), byteCount: 32))
    }
}
