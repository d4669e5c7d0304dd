import Foundation
import StratusCrypto

/// Seals and opens web auth tokens (`ckWebAuthToken`).
///
/// A token is standard base64 (120 characters of `[A-Za-z0-9+/=]`, like
/// Apple's) of 89 bytes: a version byte, the 16-byte session ID, the issue time
/// (milliseconds, big-endian), 32 random bytes, and an HMAC-SHA256 of all that
/// under a key derived from the server's token secret. Nothing of the token is
/// stored: a forged or altered token fails the HMAC, and signing out revokes the
/// session the token names. Rotation is therefore free: a fresh token is one HMAC.
struct WebAuthTokenCodec: Sendable {
    /// What a token names.
    struct Contents: Hashable, Sendable {
        /// 32 lowercase hex characters.
        var sessionID: String
        /// Milliseconds since 1970.
        var issuedAt: Int64
    }

    private static let version: UInt8 = 1
    private static let sessionIDLength = 16
    private static let nonceLength = 32
    private static let macLength = HMACSHA256.byteCount
    private static let length = 1 + sessionIDLength + 8 + nonceLength + macLength

    private let key: Data

    init(secret: Data) {
        key = HMACSHA256.authenticationCode(for: Data("stratus web auth token v1".utf8), key: secret)
    }

    /// A new token for `sessionID`, issued at `issuedAt`.
    ///
    /// - Throws: `CryptoError` if the random generator fails.
    func seal(sessionID: String, issuedAt: Int64) throws -> String {
        guard let id = HexBytes.decode(sessionID), id.count == Self.sessionIDLength else {
            preconditionFailure("session ID '\(sessionID)' is not \(Self.sessionIDLength) bytes of hex")
        }
        var body = Data([Self.version])
        body.append(id)
        withUnsafeBytes(of: UInt64(bitPattern: issuedAt).bigEndian) { body.append(contentsOf: $0) }
        body.append(try SecureRandom.bytes(count: Self.nonceLength))
        body.append(HMACSHA256.authenticationCode(for: body, key: key))
        return body.base64EncodedString()
    }

    /// The session and issue time a token names, or `nil` if it is malformed or was not sealed with this secret.
    ///
    /// Accepts the token as a query parameter arrives: already percent-decoded, still
    /// percent-encoded, or with `+` turned into a space by form decoding.
    func open(_ presented: String) -> Contents? {
        var text = presented
        if text.contains("%"), let decoded = text.removingPercentEncoding { text = decoded }
        if text.contains(" ") { text = text.replacingOccurrences(of: " ", with: "+") }
        guard text.utf8.count <= 200, let bytes = Data(base64Encoded: text), bytes.count == Self.length,
            bytes[bytes.startIndex] == Self.version
        else { return nil }
        let body = bytes.prefix(Self.length - Self.macLength)
        let mac = bytes.suffix(Self.macLength)
        guard HMACSHA256.isValidAuthenticationCode(Data(mac), for: Data(body), key: key) else { return nil }
        let id = bytes.dropFirst(1).prefix(Self.sessionIDLength)
        let time = bytes.dropFirst(1 + Self.sessionIDLength).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Contents(sessionID: HexBytes.encode(Data(id)), issuedAt: Int64(bitPattern: time))
    }
}

/// Lowercase hex of bytes, and back.
enum HexBytes {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode(_ data: Data) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count * 2)
        for byte in data {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func decode(_ text: String) -> Data? {
        let utf8 = Array(text.utf8)
        guard utf8.count.isMultiple(of: 2) else { return nil }
        var data = Data(capacity: utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    /// Whether `text` is `count` lowercase hex characters.
    static func isLowercaseHex(_ text: String, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { value($0) != nil }
    }
}
