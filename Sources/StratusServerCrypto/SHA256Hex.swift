import Foundation
import StratusCrypto

/// The lowercase hex SHA-256 of a short text, for lookups made on every request (the stored form
/// of an API token): one stack SHA-256 context, no `Data`, no provider lookup (``SHA256`` goes
/// through OpenSSL's EVP interface and allocates a context per hash).
package enum SHA256Hex {
    /// The 64 lowercase hex characters of the SHA-256 of `text`'s UTF-8 bytes.
    package static func digest(of text: String) -> String {
        #if canImport(COpenSSL) && !canImport(CryptoKit)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SHA256Digest.byteCount) { digest in
            guard let base = digest.baseAddress else { return "" }
            var hash = StackSHA256()
            hash.update(text)
            hash.finalize(into: base)
            return Hex.encode(UnsafeRawBufferPointer(digest))
        }
        #else
        SHA256.hash(text).hexString
        #endif
    }
}
