import Foundation
internal import COpenSSL

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
        guard !signature.isEmpty else { return false }
        OpenSSLErrorQueue.clear()
        // Malformed signatures leave entries in the queue; they are not errors for our caller.
        defer { OpenSSLErrorQueue.clear() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { return false }
        return signature.withNonNullBytes { signatureBytes, signatureCount in
            message.withNonNullBytes { messageBytes, messageCount in
                // > EVP_DigestVerify() return 1 for success; any other value indicates failure.
                EVP_DigestVerify(context, signatureBytes, signatureCount, messageBytes, messageCount) == 1
            }
        }
    }
}
