#if canImport(CryptoKit)
import CryptoKit
import Foundation

/// A P-256 private key in CryptoKit: the Apple side of ``P256PrivateKey``, the same interface as
/// the OpenSSL side. The PEM and DER encodings are ``P256KeyEncoding``'s (pure Swift, checked
/// against OpenSSL on Linux); CryptoKit only holds the scalar, derives the point and signs.
// Safety: CryptoKit keys are immutable values.
struct SigningKeyBackend: @unchecked Sendable {
    let key: P256.Signing.PrivateKey

    /// A new random key.
    init() throws {
        key = P256.Signing.PrivateKey()
    }

    /// A key read from SEC 1 or PKCS #8 PEM text; a public point that does not match the scalar is refused.
    init(pemRepresentation: String) throws {
        let parts = try P256KeyEncoding.privateKey(fromPEM: pemRepresentation)
        do {
            key = try P256.Signing.PrivateKey(rawRepresentation: parts.scalar)
        } catch {
            throw CryptoError(code: .invalidKey, message: "the private scalar is not a valid P-256 key: \(error)")
        }
        if let point = parts.point, point != key.publicKey.x963Representation {
            throw CryptoError(code: .invalidKey, message: "the private key's public point does not match its private scalar")
        }
    }

    /// PKCS #8 PEM.
    var pkcs8PEM: String {
        PEMText.block(label: "PRIVATE KEY", der: P256KeyEncoding.pkcs8DER(scalar: key.rawRepresentation, point: key.publicKey.x963Representation))
    }

    /// SEC 1 PEM.
    var sec1PEM: String {
        PEMText.block(label: "EC PRIVATE KEY", der: P256KeyEncoding.sec1DER(scalar: key.rawRepresentation, point: key.publicKey.x963Representation))
    }

    /// The public key's `SubjectPublicKeyInfo` DER.
    var publicKeyDER: Data { P256KeyEncoding.spkiDER(point: key.publicKey.x963Representation) }

    /// An ECDSA/SHA-256 signature of `message`, DER-encoded.
    func signature(for message: Data) throws -> Data {
        do {
            return try key.signature(for: message).derRepresentation
        } catch {
            throw CryptoError(code: .signingFailed, message: "CryptoKit could not sign: \(error)")
        }
    }
}

/// A P-256 public key in CryptoKit: the Apple side of ``P256PublicKey``.
///
/// `package` so that the server's verification (`StratusServerCrypto`) reaches the CryptoKit key.
// Safety: CryptoKit keys are immutable values.
package struct PublicKeyBackend: @unchecked Sendable {
    /// The key.
    package let key: P256.Signing.PublicKey

    /// A key read from `SubjectPublicKeyInfo` DER.
    init(derRepresentation: Data) throws {
        let point = try P256KeyEncoding.point(fromSPKI: derRepresentation)
        do {
            key = try P256.Signing.PublicKey(x963Representation: point)
        } catch {
            throw CryptoError(code: .invalidKey, message: "the point is not on P-256: \(error)")
        }
    }

    /// A key read from a PEM `PUBLIC KEY` block.
    init(pemRepresentation: String) throws {
        try self.init(derRepresentation: P256KeyEncoding.spkiDER(point: P256KeyEncoding.point(fromPEM: pemRepresentation)))
    }

    /// `SubjectPublicKeyInfo` DER.
    var derRepresentation: Data { P256KeyEncoding.spkiDER(point: key.x963Representation) }
    /// PEM `PUBLIC KEY`.
    var pemRepresentation: String { PEMText.block(label: "PUBLIC KEY", der: derRepresentation) }
}
#endif
