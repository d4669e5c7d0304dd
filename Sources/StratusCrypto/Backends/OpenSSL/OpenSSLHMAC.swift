#if canImport(COpenSSL) && !canImport(CryptoKit)
import Foundation
internal import COpenSSL

/// HMAC-SHA256 through OpenSSL's `HMAC()`: the Linux side of ``HMACSHA256``, the same interface
/// as the CryptoKit side.
enum HMACBackend {
    /// The 32-byte HMAC-SHA256 of `data` under `key`.
    static func authenticationCode(for data: Data, key: Data) -> Data {
        precondition(key.count <= Int(Int32.max), "HMAC key of \(key.count) bytes is too long for OpenSSL")
        var output = Data(count: HMACSHA256.byteCount)
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
            result && length == UInt32(HMACSHA256.byteCount),
            "OpenSSL HMAC(SHA-256) failed: \(OpenSSLErrorQueue.drain())"
        )
        return output
    }

    /// Whether `code` is the HMAC-SHA256 of `data` under `key`, compared in constant time.
    static func isValidAuthenticationCode(_ code: Data, for data: Data, key: Data) -> Bool {
        ConstantTimeBackend.isEqual(code, authenticationCode(for: data, key: key))
    }
}
#endif
