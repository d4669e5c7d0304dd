#if canImport(COpenSSL) && !canImport(CryptoKit)
import Foundation
internal import COpenSSL
import Synchronization

extension EVPKey {
    /// Signs `message` with ECDSA over SHA-256 and returns the DER-encoded signature.
    func signSHA256(_ message: Data) throws -> Data {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_MD_CTX_new() else {
            throw OpenSSLErrorQueue.error(.signingFailed, "EVP_MD_CTX_new failed")
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else {
            throw OpenSSLErrorQueue.error(.signingFailed, "EVP_DigestSignInit(SHA-256) failed")
        }
        return try message.withNonNullBytes { bytes, count in
            // > If sig is NULL then the maximum size of the output buffer is written to siglen.
            var length = 0
            guard EVP_DigestSign(context, nil, &length, bytes, count) == 1, length > 0 else {
                throw OpenSSLErrorQueue.error(.signingFailed, "EVP_DigestSign could not size the signature")
            }
            var signature = Data(count: length)
            let status = signature.withUnsafeMutableBytes { raw -> Int32 in
                guard let out = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
                return EVP_DigestSign(context, out, &length, bytes, count)
            }
            guard status == 1 else {
                throw OpenSSLErrorQueue.error(.signingFailed, "EVP_DigestSign failed")
            }
            // DER signatures vary in length (r and s drop leading zeros); keep what was written.
            signature.count = length
            return signature
        }
    }
}

/// Idle verification contexts of one key (`EVP_PKEY_CTX`), freed with the pool.
///
/// Storage only: the verification that fills and drains it is server-side
/// (`StratusServerCrypto`, `EVPKey+Verification.swift`); a client never verifies.
package final class VerifierPool: Sendable {
    /// An idle context.
    // Safety: a context in the pool is used by nobody; `take` hands it to exactly one caller,
    // who uses it on one thread and gives it back with `put` (or frees it).
    private struct Idle: @unchecked Sendable {
        let context: OpaquePointer
    }

    private let idle = Mutex<[Idle]>([])
    /// The most idle contexts kept; more concurrent verifications make and free their own.
    private let maximum = 16

    /// An idle context, if one is kept.
    package func take() -> OpaquePointer? {
        idle.withLock { $0.popLast()?.context }
    }

    /// Keeps `context` for the next verification, or frees it when enough are kept.
    package func put(_ context: OpaquePointer) {
        let entry = Idle(context: context)
        let kept = idle.withLock { idle -> Bool in
            guard idle.count < maximum else { return false }
            idle.append(entry)
            return true
        }
        if !kept { EVP_PKEY_CTX_free(context) }
    }

    deinit {
        for entry in idle.withLock({ $0 }) { EVP_PKEY_CTX_free(entry.context) }
    }
}
#endif
