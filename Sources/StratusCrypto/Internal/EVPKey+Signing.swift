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

    /// Checks a DER-encoded ECDSA/SHA-256 signature; any malformed input is `false`.
    func verifySHA256(_ signature: Data, for message: Data) -> Bool {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SHA256Digest.byteCount) { digest in
            guard let digest = digest.baseAddress else { return false }
            message.withNonNullBytes { bytes, count in StackSHA256.hash(bytes, count: count, into: digest) }
            return verifySHA256(signature, digest: UnsafePointer(digest))
        }
    }

    /// Checks a DER-encoded ECDSA signature over a SHA-256 digest (32 bytes at `digest`).
    ///
    /// Verifies with `EVP_PKEY_verify` on a context initialized earlier for this key:
    /// `EVP_DigestVerifyInit` fetched the digest and the signature algorithm from the providers
    /// on every call, which cost about as much as the elliptic-curve arithmetic. OpenSSL allows
    /// `EVP_PKEY_verify` to be called repeatedly on a context with the same parameters; each
    /// context is used by one thread at a time. The lower-level `ECDSA_do_verify` on a cached
    /// `EC_KEY` measured the same (within 1% of the instructions), so the supported API stays.
    func verifySHA256(_ signature: Data, digest: UnsafePointer<UInt8>) -> Bool {
        guard !signature.isEmpty else { return false }
        guard let context = verifiers.take() ?? makeVerifier() else {
            OpenSSLErrorQueue.clear()
            return false
        }
        let status = signature.withNonNullBytes { signatureBytes, signatureCount in
            // > EVP_PKEY_verify() returns 1 if the verification was successful and 0 if it failed.
            // > Unlike other functions the return value 0 from EVP_PKEY_verify() only indicates that
            // > the signature did not verify successfully.
            EVP_PKEY_verify(context, signatureBytes, signatureCount, digest, SHA256Digest.byteCount)
        }
        if status == 0 || status == 1 {
            verifiers.put(context)
        } else {
            EVP_PKEY_CTX_free(context)
        }
        // A malformed signature leaves entries in this thread's queue; they are no error of our
        // caller's. The queue is not cleared beforehand: nothing here reads it.
        if status != 1 || ERR_peek_error() != 0 { OpenSSLErrorQueue.clear() }
        return status == 1
    }

    /// A context set up for ECDSA/SHA-256 verification with this key.
    private func makeVerifier() -> OpaquePointer? {
        guard let context = EVP_PKEY_CTX_new(pointer, nil) else { return nil }
        guard EVP_PKEY_verify_init(context) == 1, EVP_PKEY_CTX_set_signature_md(context, EVP_sha256()) == 1 else {
            EVP_PKEY_CTX_free(context)
            return nil
        }
        return context
    }
}

/// Idle verification contexts of one key (`EVP_PKEY_CTX`), freed with the pool.
final class VerifierPool: Sendable {
    /// An idle context.
    // Safety: a context in the pool is used by nobody; `take` hands it to exactly one caller,
    // who uses it on one thread and gives it back with `put` (or frees it).
    private struct Idle: @unchecked Sendable {
        let context: OpaquePointer
    }

    private let idle = Mutex<[Idle]>([])
    /// The most idle contexts kept; more concurrent verifications make and free their own.
    private let maximum = 16

    func take() -> OpaquePointer? {
        idle.withLock { $0.popLast()?.context }
    }

    func put(_ context: OpaquePointer) {
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
