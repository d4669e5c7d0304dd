#if canImport(COpenSSL) && !canImport(CryptoKit)
import Foundation
internal import COpenSSL

/// Random bytes from OpenSSL's `RAND_bytes`: the Linux side of ``SecureRandom``, the same
/// interface as the Apple side (`SecRandomCopyBytes`).
enum RandomBackend {
    /// `count` random bytes (at least one).
    ///
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/randomFailed`` if the generator fails.
    static func bytes(count: Int) throws(CryptoError) -> Data {
        precondition(count <= Int(Int32.max), "SecureRandom.bytes(count:) count \(count) is too large")
        var output = Data(count: count)
        OpenSSLErrorQueue.clear()
        let status = output.withUnsafeMutableBytes { raw -> Int32 in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
            // > RAND_bytes() ... returns 1 on success, -1 if not supported ... or 0 on other failure.
            return RAND_bytes(base, Int32(count))
        }
        guard status == 1 else {
            throw OpenSSLErrorQueue.error(.randomFailed, "RAND_bytes failed to produce \(count) bytes (status \(status))")
        }
        return output
    }
}
#endif
