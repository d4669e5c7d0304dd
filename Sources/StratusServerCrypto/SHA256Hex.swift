import Foundation
import StratusCrypto

/// The lowercase hex SHA-256 of a short text, for lookups made on every request (the stored form
/// of an API token): one stack SHA-256 context, no `Data`, no provider lookup (``SHA256`` goes
/// through OpenSSL's EVP interface and allocates a context per hash).
package enum SHA256Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// The 64 lowercase hex characters of the SHA-256 of `text`'s UTF-8 bytes.
    package static func digest(of text: String) -> String {
        #if canImport(COpenSSL) && !canImport(CryptoKit)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SHA256Digest.byteCount) { digest in
            guard let base = digest.baseAddress else { return "" }
            var hash = StackSHA256()
            hash.update(text)
            hash.finalize(into: base)
            return String(unsafeUninitializedCapacity: SHA256Digest.byteCount * 2) { hex in
                for (index, byte) in digest.enumerated() {
                    hex[2 * index] = digits[Int(byte >> 4)]
                    hex[2 * index + 1] = digits[Int(byte & 0x0F)]
                }
                return SHA256Digest.byteCount * 2
            }
        }
        #else
        SHA256.hash(text).hexString
        #endif
    }
}
