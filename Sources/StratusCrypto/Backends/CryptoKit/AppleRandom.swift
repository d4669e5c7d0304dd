#if canImport(CryptoKit)
import Foundation

#if canImport(Security)
import Security
#endif

/// Random bytes from the system generator, `SecRandomCopyBytes`: the Apple side of
/// ``SecureRandom``, the same interface as the OpenSSL side (`RAND_bytes`).
enum RandomBackend {
    /// `count` random bytes (at least one).
    ///
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/randomFailed`` if the generator fails.
    static func bytes(count: Int) throws(CryptoError) -> Data {
        var output = Data(count: count)
        let status = output.withUnsafeMutableBytes { raw -> OSStatus in
            guard let base = raw.baseAddress else { return errSecParam }
            return SecRandomCopyBytes(kSecRandomDefault, count, base)
        }
        guard status == errSecSuccess else {
            throw CryptoError(code: .randomFailed, message: "SecRandomCopyBytes failed to produce \(count) bytes (status \(status))")
        }
        return output
    }
}
#endif
