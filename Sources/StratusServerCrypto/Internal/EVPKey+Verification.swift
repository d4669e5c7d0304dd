#if canImport(COpenSSL) && !canImport(CryptoKit)
import Foundation
internal import COpenSSL
import StratusCrypto

/// ECDSA P-256/SHA-256 verification through OpenSSL: the server's side of the keys
/// (`StratusCrypto` only signs; a client never verifies).
extension EVPKey {
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
#endif
