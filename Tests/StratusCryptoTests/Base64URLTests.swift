import Foundation
import StratusCrypto
import Testing

@Suite struct Base64URLTests {
    /// RFC 4648 vectors encode without padding and with the URL alphabet.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ])
    func encodesRFC4648Vectors(plain: String, encoded: String) {
        #expect(Data(plain.utf8).base64URLEncodedString() == encoded)
        #expect(Data(base64URLEncoded: encoded) == Data(plain.utf8))
    }

    /// `+` and `/` become `-` and `_`.
    @Test func usesURLSafeAlphabet() {
        #expect(Data([0xfb, 0xff]).base64URLEncodedString() == "-_8")
        #expect(Data([0xfb, 0xff, 0xbf]).base64URLEncodedString() == "-_-_")
        #expect(Data(base64URLEncoded: "-_-_") == Data([0xfb, 0xff, 0xbf]))
    }

    /// Padded input is accepted; bad characters, whitespace and wrong padding are rejected.
    @Test func decodingIsStrict() {
        #expect(Data(base64URLEncoded: "Zg==") == Data("f".utf8))
        #expect(Data(base64URLEncoded: "Zm8=") == Data("fo".utf8))
        for bad in ["Z", "Zg=", "Zm8==", "Zg===", "+/8", "Zm 9v", "Zm9v\n", "Z=g", "Zm9v=", "é"] {
            #expect(Data(base64URLEncoded: bad) == nil, "\(bad)")
        }
    }

    /// Every length round-trips.
    @Test func roundTripsRandomData() throws {
        for count in 0..<70 {
            let data = try SecureRandom.bytes(count: count)
            let text = data.base64URLEncodedString()
            #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
            #expect(Data(base64URLEncoded: text) == data)
        }
    }
}
