#if canImport(COpenSSL) && !canImport(CryptoKit)
import Foundation

/// A P-256 private key in OpenSSL: the Linux side of ``P256PrivateKey``, the same interface as the
/// CryptoKit side.
struct SigningKeyBackend: Sendable {
    let key: EVPKey

    /// A new random key.
    init() throws {
        key = try EVPKey.generateP256()
    }

    /// A key read from SEC 1 or PKCS #8 PEM text (OpenSSL also checks the pair).
    init(pemRepresentation: String) throws {
        key = try EVPKey.readPrivateKey(pem: pemRepresentation)
    }

    /// PKCS #8 PEM.
    var pkcs8PEM: String { key.privateKeyPEM(pkcs8: true) }
    /// SEC 1 PEM.
    var sec1PEM: String { key.privateKeyPEM(pkcs8: false) }
    /// The public key's `SubjectPublicKeyInfo` DER.
    var publicKeyDER: Data { key.publicKeyDER() }

    /// An ECDSA/SHA-256 signature of `message`, DER-encoded.
    func signature(for message: Data) throws -> Data {
        try key.signSHA256(message)
    }
}

/// A P-256 public key in OpenSSL: the Linux side of ``P256PublicKey``.
///
/// `package` so that the server's verification (`StratusServerCrypto`) reaches the `EVP_PKEY`.
package struct PublicKeyBackend: Sendable {
    /// The key, read-only.
    package let key: EVPKey

    /// A key read from `SubjectPublicKeyInfo` DER.
    init(derRepresentation: Data) throws {
        key = try EVPKey.readPublicKey(der: derRepresentation)
    }

    /// A key read from a PEM `PUBLIC KEY` block.
    init(pemRepresentation: String) throws {
        key = try EVPKey.readPublicKey(pem: pemRepresentation)
    }

    /// `SubjectPublicKeyInfo` DER.
    var derRepresentation: Data { key.publicKeyDER() }
    /// PEM `PUBLIC KEY`.
    var pemRepresentation: String { key.publicKeyPEM() }
}
#endif
