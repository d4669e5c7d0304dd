import Foundation
import StratusCrypto
import StratusServerCrypto

/// Seals and opens web auth tokens (`ckWebAuthToken`).
///
/// A token is standard base64 (120 characters of `[A-Za-z0-9+/=]`, like
/// Apple's) of 89 bytes: a version byte, the 16-byte session ID, the issue time
/// (milliseconds, big-endian), 32 random bytes, and an HMAC-SHA256 of all that
/// under a key derived from the server's token secret. Nothing of the token is
/// stored: a forged or altered token fails the HMAC, and signing out revokes the
/// session the token names. Rotation is therefore free: a fresh token is one HMAC.
///
/// Every authenticated request opens its token twice (the head's screening, then authentication)
/// and seals a fresh one, so the HMAC key's padded blocks are hashed once (``HMACSHA256Key``) and
/// the bytes are handled without intermediate copies.
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

    private let key: HMACSHA256Key

    init(secret: Data) {
        key = HMACSHA256Key(HMACSHA256.authenticationCode(for: Data("stratus web auth token v1".utf8), key: secret))
    }

    /// A new token for `sessionID`, issued at `issuedAt`.
    ///
    /// - Throws: `CryptoError` if the random generator fails.
    func seal(sessionID: String, issuedAt: Int64) throws -> String {
        let random = try SecureRandom.bytes(count: Self.nonceLength)
        var token = Data(count: Self.length)
        token.withUnsafeMutableBytes { bytes in
            bytes[0] = Self.version
            guard HexBytes.decode(sessionID, into: UnsafeMutableRawBufferPointer(rebasing: bytes[1..<(1 + Self.sessionIDLength)])) else {
                preconditionFailure("session ID '\(sessionID)' is not \(Self.sessionIDLength) bytes of hex")
            }
            var time = UInt64(bitPattern: issuedAt).bigEndian
            let timeStart = 1 + Self.sessionIDLength
            withUnsafeBytes(of: &time) { UnsafeMutableRawBufferPointer(rebasing: bytes[timeStart..<(timeStart + 8)]).copyMemory(from: $0) }
            let signed = Self.length - Self.macLength
            random.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: bytes[(timeStart + 8)..<signed]).copyMemory(from: $0) }
            key.authenticationCode(
                for: UnsafeRawBufferPointer(rebasing: bytes[..<signed]), into: UnsafeMutableRawBufferPointer(rebasing: bytes[signed...]))
        }
        return token.base64EncodedString()
    }

    /// The session and issue time a token names, or `nil` if it is malformed or was not sealed with this secret.
    ///
    /// Accepts the token as a query parameter arrives: already percent-decoded, still
    /// percent-encoded, or with `+` turned into a space by form decoding.
    func open(_ presented: String) -> Contents? {
        var text = presented
        if text.utf8.contains(UInt8(ascii: "%")), let decoded = text.removingPercentEncoding { text = decoded }
        if text.utf8.contains(UInt8(ascii: " ")) { text = text.replacingOccurrences(of: " ", with: "+") }
        guard text.utf8.count <= 200, let bytes = Data(base64Encoded: text), bytes.count == Self.length else { return nil }
        return bytes.withUnsafeBytes { token -> Contents? in
            let signed = Self.length - Self.macLength
            guard token[0] == Self.version,
                key.isValidAuthenticationCode(UnsafeRawBufferPointer(rebasing: token[signed...]), for: UnsafeRawBufferPointer(rebasing: token[..<signed]))
            else { return nil }
            let id = UnsafeRawBufferPointer(rebasing: token[1..<(1 + Self.sessionIDLength)])
            let time = token[(1 + Self.sessionIDLength)..<(1 + Self.sessionIDLength + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return Contents(sessionID: HexBytes.encode(id), issuedAt: Int64(bitPattern: time))
        }
    }
}

/// Lowercase hex of bytes, and back.
enum HexBytes {
    private static let digits = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            var written = 0
            for byte in bytes {
                text[written] = digits[Int(byte >> 4)]
                text[written + 1] = digits[Int(byte & 0x0F)]
                written += 2
            }
            return written
        }
    }

    /// Writes the bytes `text` spells in hex to `bytes`; `false` unless `text` is exactly
    /// `2 × bytes.count` hex digits (`bytes` may then be partly written).
    static func decode(_ text: String, into bytes: UnsafeMutableRawBufferPointer) -> Bool {
        guard text.utf8.count == 2 * bytes.count else { return false }
        var index = 0
        var high: UInt8?
        for digit in text.utf8 {
            guard let nibble = value(digit) else { return false }
            if let first = high {
                bytes[index] = first << 4 | nibble
                index += 1
                high = nil
            } else {
                high = nibble
            }
        }
        return true
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
