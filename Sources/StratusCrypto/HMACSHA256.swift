public import Foundation
internal import COpenSSL

/// HMAC with SHA-256, for tamper-evident values such as web auth tokens (``SealingKey`` also hides them).
///
/// ```swift
/// let tag = HMACSHA256.authenticationCode(for: payload, key: serverSecret)
/// let token = (payload + tag).base64URLEncodedString()
/// // later
/// guard HMACSHA256.isValidAuthenticationCode(tag, for: payload, key: serverSecret) else { … }
/// ```
///
/// Like ``SHA256``, this never throws: OpenSSL's `HMAC()` only fails when it
/// cannot allocate, which stops the process with a `precondition`.
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
        precondition(key.count <= Int(Int32.max), "HMAC key of \(key.count) bytes is too long for OpenSSL")
        var output = Data(count: byteCount)
        var length: UInt32 = 0
        OpenSSLErrorQueue.clear()
        let result = key.withNonNullBytes { keyBytes, keyCount in
            data.withNonNullBytes { dataBytes, dataCount in
                output.withUnsafeMutableBytes { raw -> Bool in
                    guard let out = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
                    // > HMAC() ... returns a pointer to the authentication code or NULL if an error occurred.
                    return HMAC(EVP_sha256(), keyBytes, Int32(keyCount), dataBytes, dataCount, out, &length) != nil
                }
            }
        }
        precondition(
            result && length == UInt32(byteCount),
            "OpenSSL HMAC(SHA-256) failed: \(OpenSSLErrorQueue.drain())"
        )
        return output
    }

    /// Checks an authentication code in constant time.
    ///
    /// - Parameters:
    ///   - code: The code that came with the message, such as the tail of a token.
    ///   - data: The message it claims to authenticate.
    ///   - key: The secret key.
    /// - Returns: `true` if `code` is the HMAC-SHA256 of `data` under `key`.
    public static func isValidAuthenticationCode(_ code: Data, for data: Data, key: Data) -> Bool {
        ConstantTime.isEqual(code, authenticationCode(for: data, key: key))
    }
}
