public import Foundation
import StratusCrypto

/// HKDF with SHA-256 (RFC 5869): derives keys for separate uses from one secret.
///
/// Extract-then-expand: the pseudorandom key is `HMAC(salt, secret)`, and each
/// 32-byte block of output is `HMAC(prk, previous ‖ info ‖ counter)`. Different
/// `info` labels give independent keys, so a key for one use reveals nothing
/// about a key for another.
///
/// ```swift
/// let markerKey = HKDFSHA256.deriveKey(from: serverSecret, info: Data("query continuation".utf8), byteCount: 32)
/// ```
///
/// Like ``HMACSHA256``, this never throws.
public enum HKDFSHA256 {
    /// The most bytes one derivation may produce (255 blocks of 32 bytes).
    public static let maximumByteCount = 255 * HMACSHA256.byteCount

    /// Derives `byteCount` bytes from a secret.
    ///
    /// - Parameters:
    ///   - inputKeyMaterial: The secret, such as a server's token secret.
    ///   - salt: A non-secret value; empty means 32 zero bytes, as RFC 5869 says.
    ///   - info: The label of the use the key is for.
    ///   - byteCount: How many bytes; 1 to ``maximumByteCount``.
    /// - Returns: The derived bytes.
    public static func deriveKey(from inputKeyMaterial: Data, salt: Data = Data(), info: Data, byteCount: Int) -> Data {
        precondition(
            (1...maximumByteCount).contains(byteCount), "HKDF-SHA256 derives 1 to \(maximumByteCount) bytes; \(byteCount) were asked for"
        )
        let pseudorandomKey = HMACSHA256.authenticationCode(
            for: inputKeyMaterial, key: salt.isEmpty ? Data(count: HMACSHA256.byteCount) : salt
        )
        var output = Data()
        var block = Data()
        var counter: UInt8 = 1
        while output.count < byteCount {
            block = HMACSHA256.authenticationCode(for: block + info + Data([counter]), key: pseudorandomKey)
            output.append(block)
            counter &+= 1
        }
        return output.prefix(byteCount)
    }
}
