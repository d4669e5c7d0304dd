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
/// Every authenticated request presents the token the previous reply issued, opens it twice (the
/// head's screening, then authentication) and seals a fresh one. So the codec remembers the
/// tokens it sealed and opened lately (``RecentValues``, by their text): a token is decoded and
/// its HMAC checked at most once, and a token this server issued never — only a text that passed
/// the HMAC, or that this codec sealed, is remembered, so finding it is as good as checking it.
/// What a token names never changes; whether its session is still live is read from the store on
/// every request. The HMAC key's padded blocks are hashed once (``HMACSHA256Key``), and the bytes
/// are handled without intermediate copies.
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
    /// Tokens sealed or opened lately, by their canonical text (base64), with what they name.
    private let recent: RecentValues<Contents>

    /// A codec for tokens sealed with `secret`, remembering up to `recentCapacity` tokens it
    /// sealed or opened (about 250 bytes each).
    init(secret: Data, recentCapacity: Int = 2_048) {
        key = HMACSHA256Key(HMACSHA256.authenticationCode(for: Data("stratus web auth token v1".utf8), key: secret))
        recent = RecentValues(capacity: recentCapacity)
    }

    /// A new token for `sessionID`, issued at `issuedAt`.
    ///
    /// - Throws: `CryptoError` if the random generator fails.
    func seal(sessionID: String, issuedAt: Int64) throws -> String {
        let random = try SecureRandom.bytes(count: Self.nonceLength)
        var token = Data(count: Self.length)
        token.withUnsafeMutableBytes { bytes in
            bytes[0] = Self.version
            guard Hex.decode(sessionID, into: UnsafeMutableRawBufferPointer(rebasing: bytes[1..<(1 + Self.sessionIDLength)])) else {
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
        let text = token.base64EncodedString()
        recent.remember(Contents(sessionID: sessionID, issuedAt: issuedAt), of: text)
        return text
    }

    /// The session and issue time a token names, or `nil` if it is malformed or was not sealed with this secret.
    ///
    /// Accepts the token as a query parameter arrives: already percent-decoded, still
    /// percent-encoded, or with `+` turned into a space by form decoding.
    func open(_ presented: String) -> Contents? {
        guard presented.utf8.count <= 400 else { return nil }
        // A remembered text is canonical base64 (never `%` or a space): found as presented, it needs no scan.
        if let known = recent.value(of: presented) { return known }
        var text = presented
        if text.utf8.contains(UInt8(ascii: "%")), let decoded = text.removingPercentEncoding { text = decoded }
        if text.utf8.contains(UInt8(ascii: " ")) { text = text.replacingOccurrences(of: " ", with: "+") }
        guard text.utf8.count <= 200 else { return nil }
        return recent.value(of: text) { text in verify(text) }
    }

    /// What `text` names if it is a token this codec's key sealed: base64 decoded, HMAC checked.
    private func verify(_ text: String) -> Contents? {
        guard let bytes = Data(base64Encoded: text), bytes.count == Self.length else { return nil }
        return bytes.withUnsafeBytes { token -> Contents? in
            let signed = Self.length - Self.macLength
            guard token[0] == Self.version,
                key.isValidAuthenticationCode(UnsafeRawBufferPointer(rebasing: token[signed...]), for: UnsafeRawBufferPointer(rebasing: token[..<signed]))
            else { return nil }
            let id = UnsafeRawBufferPointer(rebasing: token[1..<(1 + Self.sessionIDLength)])
            let time = token[(1 + Self.sessionIDLength)..<(1 + Self.sessionIDLength + 8)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return Contents(sessionID: Hex.encode(id), issuedAt: Int64(bitPattern: time))
        }
    }
}
