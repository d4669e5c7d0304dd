public import Foundation

/// HMAC with SHA-256, for tamper-evident values such as web auth tokens.
///
/// ```swift
/// import Foundation
/// import StratusCrypto
///
/// func token(for payload: Data, serverSecret: Data) -> String {
///     let tag = HMACSHA256.authenticationCode(for: payload, key: serverSecret)
///     return (payload + tag).base64URLEncodedString()
/// }
///
/// func isGenuine(payload: Data, tag: Data, serverSecret: Data) -> Bool {
///     HMACSHA256.isValidAuthenticationCode(tag, for: payload, key: serverSecret)  // constant time
/// }
/// ```
///
/// CryptoKit's `HMAC<SHA256>` on Apple platforms, OpenSSL's `HMAC()` on Linux. Like ``SHA256``,
/// this never throws: OpenSSL's `HMAC()` only fails when it cannot allocate, which stops the
/// process with a `precondition`.
public enum HMACSHA256 {
    /// The number of bytes in an authentication code.
    public static let byteCount = 32

    /// Computes the HMAC-SHA256 of `data` under `key`.
    ///
    /// - Parameters:
    ///   - data: The message to authenticate.
    ///   - key: The secret key; any length (keys longer than 64 bytes are hashed first, per RFC 2104).
    /// - Returns: The 32-byte authentication code.
    public static func authenticationCode(for data: Data, key: Data) -> Data {
        HMACBackend.authenticationCode(for: data, key: key)
    }

    /// Checks an authentication code in constant time.
    ///
    /// - Parameters:
    ///   - code: The code that came with the message, such as the tail of a token.
    ///   - data: The message it claims to authenticate.
    ///   - key: The secret key.
    /// - Returns: `true` if `code` is the HMAC-SHA256 of `data` under `key`.
    public static func isValidAuthenticationCode(_ code: Data, for data: Data, key: Data) -> Bool {
        HMACBackend.isValidAuthenticationCode(code, for: data, key: key)
    }
}
