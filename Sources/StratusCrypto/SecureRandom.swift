public import Foundation

/// Cryptographically secure random bytes and tokens: `SecRandomCopyBytes` on Apple platforms,
/// OpenSSL's `RAND_bytes` on Linux.
///
/// ```swift
/// import StratusCrypto
///
/// func newTokens() throws -> (apiToken: String, marker: String, webAuthToken: String) {
///     let apiToken = try SecureRandom.hexToken()              // 64 hex characters
///     let marker = try SecureRandom.base64URLToken()          // 43 URL-safe characters
///     let webAuthToken = try SecureRandom.webAuthToken()      // 128 base64 characters
///     return (apiToken, marker, webAuthToken)
/// }
/// ```
///
/// Compare tokens a client presents with ``ConstantTime``.
public enum SecureRandom {
    /// Returns `count` random bytes.
    ///
    /// - Parameter count: How many bytes; zero or more.
    /// - Returns: The bytes.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/randomFailed`` if the system's generator fails.
    public static func bytes(count: Int) throws -> Data {
        precondition(count >= 0, "SecureRandom.bytes(count:) needs a count of zero or more, got \(count)")
        guard count > 0 else { return Data() }
        return try RandomBackend.bytes(count: count)
    }

    /// Returns a token of random bytes as lowercase hex, like the API tokens Apple's dashboard issues.
    ///
    /// - Parameter byteCount: How many random bytes; the token has twice as many characters. 32 by default (64 characters).
    /// - Returns: The token, using only `0-9` and `a-f`.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/randomFailed``.
    public static func hexToken(byteCount: Int = 32) throws -> String {
        Hex.encode(try bytes(count: byteCount))
    }

    /// Returns a token of random bytes as unpadded base64url, safe in URLs and headers.
    ///
    /// - Parameter byteCount: How many random bytes; 32 by default (43 characters).
    /// - Returns: The token, using only `A-Z`, `a-z`, `0-9`, `-` and `_`.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/randomFailed``.
    public static func base64URLToken(byteCount: Int = 32) throws -> String {
        try bytes(count: byteCount).base64URLEncodedString()
    }

    /// Returns a random (version 4) UUID, as `UUID()` does, from the generator of ``bytes(count:)``.
    ///
    /// On Linux Foundation's `UUID()` opens, reads and closes `/dev/urandom` for every UUID; OpenSSL's
    /// generator costs no system call per draw (it reseeds itself, also after a `fork`). Record names
    /// and notification IDs are made per record, so the difference shows in bulk writes. Should the
    /// generator fail, this returns `UUID()`.
    ///
    /// ```swift
    /// let recordName = SecureRandom.uuid().uuidString   // such as "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
    /// ```
    ///
    /// - Returns: A UUID with the version 4 and RFC 4122 variant bits set and 122 random bits.
    public static func uuid() -> UUID {
        guard let data = try? bytes(count: 16), data.count == 16 else { return UUID() }
        var b = [UInt8](data)
        b[6] = (b[6] & 0x0F) | 0x40  // version 4
        b[8] = (b[8] & 0x3F) | 0x80  // variant 10
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    /// Returns a token shaped like CloudKit's `ckWebAuthToken`: standard base64, at least 100 characters.
    ///
    /// - Parameter byteCount: How many random bytes; at least 75 (100 characters). 96 by default (128 characters).
    /// - Returns: The token, using only `A-Z`, `a-z`, `0-9`, `+`, `/` and `=`.
    /// - Throws: ``CryptoError`` with code ``CryptoError/Code/randomFailed``.
    public static func webAuthToken(byteCount: Int = 96) throws -> String {
        precondition(byteCount >= 75, "a web-auth token needs at least 75 random bytes, got \(byteCount)")
        return try bytes(count: byteCount).base64EncodedString()
    }
}
