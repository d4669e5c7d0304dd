#if canImport(COpenSSL) && !canImport(CryptoKit)
import Foundation
internal import COpenSSL

/// Constant-time comparison with OpenSSL's `CRYPTO_memcmp`: the Linux side of ``ConstantTime``.
enum ConstantTimeBackend {
    /// Whether two byte strings of any lengths are equal; equal lengths are compared in constant time.
    static func isEqual(_ lhs: Data, _ rhs: Data) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withNonNullBytes { left, count in
            rhs.withNonNullBytes { right, _ in
                // > CRYPTO_memcmp() ... returns 0 if the memory regions are equal.
                CRYPTO_memcmp(left, right, count) == 0
            }
        }
    }
}
#endif
