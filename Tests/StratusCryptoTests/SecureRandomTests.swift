import Foundation
import StratusCrypto
import Testing

@Suite struct SecureRandomTests {
    private static func only(_ text: String, in alphabet: String) -> Bool {
        let allowed = Set(alphabet.unicodeScalars)
        return text.unicodeScalars.allSatisfy(allowed.contains)
    }

    static let hexDigits = "0123456789abcdef"
    static let alphanumerics = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

    /// bytes(count:) returns exactly that many bytes, and two draws differ.
    @Test func bytesHaveRequestedCountAndDiffer() throws {
        #expect(try SecureRandom.bytes(count: 0).isEmpty)
        #expect(try SecureRandom.bytes(count: 1).count == 1)
        let a = try SecureRandom.bytes(count: 32)
        let b = try SecureRandom.bytes(count: 32)
        #expect(a.count == 32)
        #expect(a != b)
        #expect(try SecureRandom.bytes(count: 100_000).count == 100_000)
    }

    /// Random bytes are not obviously biased: every byte value shows up in 64 KiB.
    @Test func bytesCoverEveryValue() throws {
        #expect(Set(try SecureRandom.bytes(count: 65_536)).count == 256)
    }

    /// Hex tokens are lowercase hex, two characters per byte; 32 bytes give 64 characters.
    @Test func hexTokensAreLowercaseHex() throws {
        let token = try SecureRandom.hexToken()
        #expect(token.count == 64)
        #expect(Self.only(token, in: Self.hexDigits))
        #expect(try SecureRandom.hexToken(byteCount: 16).count == 32)
        #expect(try SecureRandom.hexToken() != token)
    }

    /// Base64url tokens are unpadded and URL-safe; 32 bytes give 43 characters.
    @Test func base64URLTokensAreURLSafe() throws {
        for _ in 0..<50 {
            let token = try SecureRandom.base64URLToken()
            #expect(token.count == 43)
            #expect(Self.only(token, in: Self.alphanumerics + "-_"))
            #expect(Data(base64URLEncoded: token)?.count == 32)
        }
        #expect(try SecureRandom.base64URLToken(byteCount: 3).count == 4)
        #expect(try SecureRandom.base64URLToken() != SecureRandom.base64URLToken())
    }

    /// Web-auth tokens are standard base64 of at least 100 characters.
    @Test func webAuthTokensAreLongStandardBase64() throws {
        let token = try SecureRandom.webAuthToken()
        #expect(token.count == 128)
        #expect(Self.only(token, in: Self.alphanumerics + "+/="))
        #expect(Data(base64Encoded: token)?.count == 96)
        let shortest = try SecureRandom.webAuthToken(byteCount: 75)
        #expect(shortest.count == 100)
        #expect(try SecureRandom.webAuthToken(byteCount: 76).count >= 100)
        #expect(try SecureRandom.webAuthToken() != token)
    }

    /// UUIDs are version 4 with the RFC 4122 variant, read back from their strings, and do not repeat.
    @Test func uuidsAreVersion4AndDistinct() throws {
        var seen: Set<UUID> = []
        for _ in 0..<10_000 {
            let uuid = SecureRandom.uuid()
            #expect(uuid.uuid.6 >> 4 == 4)
            #expect(uuid.uuid.8 >> 6 == 0b10)
            #expect(UUID(uuidString: uuid.uuidString) == uuid)
            seen.insert(uuid)
        }
        #expect(seen.count == 10_000)
        // Every random nibble varies (the fixed version and variant bits aside).
        let strings = (0..<256).map { _ in Array(SecureRandom.uuid().uuidString.utf8) }
        for position in 0..<36 where ![8, 13, 14, 18, 23].contains(position) {
            #expect(Set(strings.map { $0[position] }).count > 1, "position \(position)")
        }
    }
}
