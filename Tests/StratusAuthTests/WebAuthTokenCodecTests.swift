import Foundation
import StratusCrypto
@testable import StratusServer
import Testing

/// The web auth token's sealed form (design note 0006, "Web auth tokens and sessions"), which the
/// prepared HMAC key must not change: tokens issued before an upgrade keep working after it.
@Suite struct WebAuthTokenCodecTests {
    let secret = Data((0..<32).map { UInt8($0) })

    /// The key and layout a token had before: version 1, session ID, issue time, 32 random bytes, HMAC-SHA256.
    var tokenKey: Data { HMACSHA256.authenticationCode(for: Data("stratus web auth token v1".utf8), key: secret) }

    @Test func aTokenSealedTheWayEarlierVersionsDidStillOpens() throws {
        var body = Data([1])
        body.append(Data(repeating: 0xAB, count: 16))
        body.append(contentsOf: [0x00, 0x00, 0x01, 0x8C, 0xBA, 0x11, 0x22, 0x33])
        body.append(Data(repeating: 7, count: 32))
        body.append(HMACSHA256.authenticationCode(for: body, key: tokenKey))
        let opened = try #require(WebAuthTokenCodec(secret: secret).open(body.base64EncodedString()))
        #expect(opened.sessionID == String(repeating: "ab", count: 16))
        #expect(opened.issuedAt == 0x0000_018C_BA11_2233)
    }

    @Test func aFreshTokenHasTheSameLayoutUnderTheSameKey() throws {
        let sessionID = "0123456789abcdef0123456789abcdef"
        let token = try WebAuthTokenCodec(secret: secret).seal(sessionID: sessionID, issuedAt: 1_700_000_000_123)
        #expect(token.utf8.count == 120)
        let bytes = try #require(Data(base64Encoded: token))
        #expect(bytes.count == 89)
        #expect(bytes.prefix(17) == Data([1, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF]))
        #expect(HMACSHA256.authenticationCode(for: bytes.prefix(57), key: tokenKey) == bytes.suffix(32))
        let opened = try #require(WebAuthTokenCodec(secret: secret).open(token))
        #expect(opened == WebAuthTokenCodec.Contents(sessionID: sessionID, issuedAt: 1_700_000_000_123))
    }

    @Test func anyChangedByteOrAnotherSecretFailsToOpen() throws {
        let codec = WebAuthTokenCodec(secret: secret)
        let token = try codec.seal(sessionID: "0123456789abcdef0123456789abcdef", issuedAt: 42)
        let bytes = try #require(Data(base64Encoded: token))
        for index in bytes.indices {
            var changed = bytes
            changed[index] ^= 0x01
            #expect(codec.open(changed.base64EncodedString()) == nil, "byte \(index) changed")
        }
        #expect(codec.open(bytes.dropLast().base64EncodedString()) == nil)
        #expect(codec.open((bytes + Data([0])).base64EncodedString()) == nil)
        #expect(WebAuthTokenCodec(secret: Data(repeating: 9, count: 32)).open(token) == nil)
        #expect(codec.open(token) != nil)
    }

    /// The codec remembers tokens it sealed or opened by their text, and only what they name:
    /// a changed copy of a remembered token is checked and refused, tokens beyond what it
    /// remembers still open by their HMAC, and a token another secret sealed (and remembered)
    /// does not open here.
    @Test func rememberedTokensOpenToWhatTheyNameAndNothingElseDoes() throws {
        let codec = WebAuthTokenCodec(secret: secret, recentCapacity: 4)
        let sealed = try (0..<10).map { index in
            let contents = WebAuthTokenCodec.Contents(sessionID: String(repeating: String(format: "%02x", index), count: 16), issuedAt: Int64(index))
            return (try codec.seal(sessionID: contents.sessionID, issuedAt: contents.issuedAt), contents)
        }
        for (token, contents) in sealed {
            #expect(codec.open(token) == contents)
            #expect(codec.open(token) == contents)
            #expect(WebAuthTokenCodec(secret: secret).open(token) == contents)
            var bytes = try #require(Data(base64Encoded: token))
            bytes[30] ^= 0x01
            #expect(codec.open(bytes.base64EncodedString()) == nil)
        }
        let other = WebAuthTokenCodec(secret: Data(repeating: 9, count: 32))
        let foreign = try other.seal(sessionID: String(repeating: "cd", count: 16), issuedAt: 1)
        #expect(other.open(foreign) != nil)
        #expect(codec.open(foreign) == nil)
    }
}
