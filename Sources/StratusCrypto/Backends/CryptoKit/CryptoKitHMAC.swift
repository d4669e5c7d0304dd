#if canImport(CryptoKit)
import CryptoKit
import Foundation

/// HMAC-SHA256 through CryptoKit's `HMAC<SHA256>`: the Apple side of ``HMACSHA256``, the same
/// interface as the OpenSSL side.
enum HMACBackend {
    /// The 32-byte HMAC-SHA256 of `data` under `key`.
    static func authenticationCode(for data: Data, key: Data) -> Data {
        Data(HMAC<CryptoKit.SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
    }

    /// Whether `code` is the HMAC-SHA256 of `data` under `key` (CryptoKit compares in constant time).
    static func isValidAuthenticationCode(_ code: Data, for data: Data, key: Data) -> Bool {
        HMAC<CryptoKit.SHA256>.isValidAuthenticationCode(code, authenticating: data, using: SymmetricKey(data: key))
    }
}
#endif
