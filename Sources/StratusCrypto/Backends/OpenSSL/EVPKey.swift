#if canImport(COpenSSL) && !canImport(CryptoKit)
import Foundation
internal import COpenSSL

/// An owned OpenSSL `EVP_PKEY` holding a P-256 key, freed in `deinit`.
///
/// Every instance is checked at creation to be an EC key on P-256, so the
/// public key types can rely on it.
///
/// OpenSSL 3 allows one `EVP_PKEY` to be used from several threads at once for
/// signing, verification and encoding, as long as nobody modifies it.
// Safety: the EVP_PKEY is never mutated after `init` returns; it is only read.
package final class EVPKey: @unchecked Sendable {
    /// The key; read-only after `init`.
    package let pointer: OpaquePointer
    /// Verification contexts ready for `EVP_PKEY_verify`, reused across calls (see `verifySHA256`).
    package let verifiers = VerifierPool()

    /// Takes ownership of `pointer` after checking it is a P-256 key.
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` (and frees `pointer`) if it is another algorithm or curve.
    init(taking pointer: OpaquePointer) throws {
        self.pointer = pointer
        guard EVP_PKEY_get_base_id(pointer) == EVP_PKEY_EC else {
            throw CryptoError(
                code: .invalidKey,
                message: "the key is not an elliptic-curve key (OpenSSL key type \(EVP_PKEY_get_base_id(pointer)))"
            )
        }
        let curve = groupName()
        guard curve == "prime256v1" || curve == "P-256" else {
            throw CryptoError(
                code: .invalidKey,
                message: "the key is on curve \(curve ?? "unknown"), not P-256 (prime256v1)"
            )
        }
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    private func groupName() -> String? {
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        let status = buffer.withUnsafeMutableBufferPointer { raw -> Int32 in
            guard let base = raw.baseAddress else { return 0 }
            return EVP_PKEY_get_group_name(pointer, base, raw.count, &length)
        }
        guard status == 1 else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    // MARK: Generation

    /// Generates a new random P-256 key pair.
    static func generateP256() throws -> EVPKey {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else {
            throw OpenSSLErrorQueue.error(.keyGenerationFailed, "EVP_PKEY_CTX_new_id(EC) failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else {
            throw OpenSSLErrorQueue.error(.keyGenerationFailed, "EVP_PKEY_keygen_init failed")
        }
        // NB: EVP_EC_gen() is a macro over a variadic function, so the curve is set on the context.
        guard EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1) == 1 else {
            throw OpenSSLErrorQueue.error(.keyGenerationFailed, "EVP_PKEY_CTX_set_ec_paramgen_curve_nid(P-256) failed")
        }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen(context, &key) == 1, let key else {
            throw OpenSSLErrorQueue.error(.keyGenerationFailed, "EVP_PKEY_keygen(P-256) failed")
        }
        return try EVPKey(taking: key)
    }

    // MARK: Reading

    /// Reads a private key from PEM text: SEC 1 `EC PRIVATE KEY` or PKCS #8 `PRIVATE KEY`.
    static func readPrivateKey(pem: String) throws -> EVPKey {
        guard pem.contains("-----BEGIN EC PRIVATE KEY-----") || pem.contains("-----BEGIN PRIVATE KEY-----") else {
            throw CryptoError(
                code: .invalidPEM,
                message: "the text holds no '-----BEGIN EC PRIVATE KEY-----' or '-----BEGIN PRIVATE KEY-----' block"
                    + (pem.contains("ENCRYPTED PRIVATE KEY") ? " (encrypted keys are not supported)" : "")
            )
        }
        let key = try withReadBIO(pem) { bio in
            // A callback that refuses to supply a passphrase: without it OpenSSL
            // would prompt on the terminal for an encrypted key.
            PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)
        }
        guard let key else {
            throw OpenSSLErrorQueue.error(.invalidPEM, "the EC PRIVATE KEY or PRIVATE KEY PEM block could not be decoded")
        }
        let wrapped = try EVPKey(taking: key)
        try wrapped.checkPrivateKeyConsistency()
        return wrapped
    }

    /// Reads a public key from PEM text holding a `PUBLIC KEY` (SubjectPublicKeyInfo) block.
    static func readPublicKey(pem: String) throws -> EVPKey {
        guard pem.contains("-----BEGIN PUBLIC KEY-----") else {
            throw CryptoError(
                code: .invalidPEM,
                message: "the text holds no '-----BEGIN PUBLIC KEY-----' block"
                    + (pem.contains("PRIVATE KEY") ? " (it looks like a private key)" : "")
            )
        }
        let key = try withReadBIO(pem) { bio in
            PEM_read_bio_PUBKEY(bio, nil, { _, _, _, _ in -1 }, nil)
        }
        guard let key else {
            throw OpenSSLErrorQueue.error(.invalidPEM, "the PUBLIC KEY PEM block could not be decoded")
        }
        return try EVPKey(taking: key)
    }

    /// Reads a public key from DER-encoded SubjectPublicKeyInfo bytes.
    static func readPublicKey(der: Data) throws -> EVPKey {
        OpenSSLErrorQueue.clear()
        let key = der.withNonNullBytes { bytes, count -> OpaquePointer? in
            var cursor: UnsafePointer<UInt8>? = bytes
            return d2i_PUBKEY(nil, &cursor, count)
        }
        guard let key else {
            throw OpenSSLErrorQueue.error(.invalidKey, "the bytes are not a DER SubjectPublicKeyInfo")
        }
        return try EVPKey(taking: key)
    }

    private static func withReadBIO(
        _ text: String,
        _ body: (OpaquePointer) -> OpaquePointer?
    ) throws -> OpaquePointer? {
        let bytes = Data(text.utf8)
        guard bytes.count <= Int(Int32.max) else {
            throw CryptoError(code: .invalidPEM, message: "the PEM text is too large (\(bytes.count) bytes)")
        }
        OpenSSLErrorQueue.clear()
        return try bytes.withNonNullBytes { base, count in
            // > BIO_new_mem_buf() creates a memory BIO using len bytes of data at buf ...
            // > The supplied data is read directly from the supplied buffer.
            guard let bio = BIO_new_mem_buf(base, Int32(count)) else {
                throw OpenSSLErrorQueue.error(.invalidPEM, "BIO_new_mem_buf failed")
            }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    /// Checks that the private scalar and the public point belong together.
    private func checkPrivateKeyConsistency() throws {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else {
            throw OpenSSLErrorQueue.error(.invalidKey, "EVP_PKEY_CTX_new_from_pkey failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        // > EVP_PKEY_pairwise_check() validates that the public and private components ... are consistent.
        guard EVP_PKEY_pairwise_check(context) == 1 else {
            throw OpenSSLErrorQueue.error(.invalidKey, "the private key's public point does not match its private scalar")
        }
    }

    // MARK: Writing

    /// The private key as PEM: PKCS #8 (`PRIVATE KEY`) or SEC 1 (`EC PRIVATE KEY`).
    func privateKeyPEM(pkcs8: Bool) -> String {
        writeToString { bio in
            pkcs8
                ? PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil)
                : PEM_write_bio_PrivateKey_traditional(bio, pointer, nil, nil, 0, nil, nil)
        }
    }

    /// The public key as a PEM `PUBLIC KEY` (SubjectPublicKeyInfo) block.
    func publicKeyPEM() -> String {
        writeToString { bio in PEM_write_bio_PUBKEY(bio, pointer) }
    }

    /// The public key as DER SubjectPublicKeyInfo.
    func publicKeyDER() -> Data {
        OpenSSLErrorQueue.clear()
        let length = i2d_PUBKEY(pointer, nil)
        precondition(length > 0, "OpenSSL i2d_PUBKEY failed on a valid P-256 key: \(OpenSSLErrorQueue.drain())")
        var der = Data(count: Int(length))
        let written = der.withUnsafeMutableBytes { raw -> Int32 in
            var cursor = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            return i2d_PUBKEY(pointer, &cursor)
        }
        precondition(written == length, "OpenSSL i2d_PUBKEY wrote \(written) of \(length) bytes: \(OpenSSLErrorQueue.drain())")
        return der
    }

    /// Runs `write` against a memory BIO and returns what it wrote.
    ///
    /// Encoding a key that was validated at creation fails only when OpenSSL
    /// cannot allocate, so failure is a `precondition`.
    private func writeToString(_ write: (OpaquePointer) -> Int32) -> String {
        OpenSSLErrorQueue.clear()
        guard let bio = BIO_new(BIO_s_mem()) else {
            preconditionFailure("OpenSSL BIO_new(BIO_s_mem) failed: \(OpenSSLErrorQueue.drain())")
        }
        defer { BIO_free(bio) }
        precondition(write(bio) == 1, "OpenSSL PEM encoding of a P-256 key failed: \(OpenSSLErrorQueue.drain())")
        var data: UnsafeMutablePointer<CChar>?
        let length = stratus_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else {
            preconditionFailure("OpenSSL memory BIO is empty after PEM encoding")
        }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }
}
#endif
