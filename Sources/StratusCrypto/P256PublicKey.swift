public import Foundation

/// A NIST P-256 public key, such as the public half of a server-to-server key.
///
/// Read the key the dashboard holds, the output of `openssl ec -in eckey.pem -pubout`, and
/// write it back out:
///
/// ```swift
/// import Foundation
/// import StratusCrypto
///
/// func storedForm(ofPasted pastedPEM: String) throws -> Data {
///     let publicKey = try P256PublicKey(pemRepresentation: pastedPEM)
///     return publicKey.derRepresentation     // 91 bytes
/// }
/// ```
///
/// Two keys are equal when their SubjectPublicKeyInfo encodings are. A client only holds and
/// shows public keys; checking signatures with them is the server's business
/// (`isValidSignature(_:for:)` in `StratusServerCrypto`).
public struct P256PublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The platform's key (OpenSSL or CryptoKit), for the server's verification.
    package let backend: PublicKeyBackend

    /// The key as DER-encoded SubjectPublicKeyInfo (91 bytes), suitable for storage.
    public let derRepresentation: Data

    init(backend: PublicKeyBackend) {
        self.backend = backend
        self.derRepresentation = backend.derRepresentation
    }

    /// Reads a public key from a PEM `-----BEGIN PUBLIC KEY-----` (SubjectPublicKeyInfo) block.
    ///
    /// Text around the block is ignored, so a pasted key with extra blank lines works.
    ///
    /// - Parameter pemRepresentation: The PEM text.
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/invalidPEM`` if there is no
    ///   decodable `PUBLIC KEY` block, or ``CryptoError/Code/invalidKey`` if the key is
    ///   not an EC key on P-256.
    public init(pemRepresentation: String) throws {
        self.init(backend: try PublicKeyBackend(pemRepresentation: pemRepresentation))
    }

    /// Reads a public key from DER-encoded SubjectPublicKeyInfo bytes, such as ``derRepresentation``.
    ///
    /// - Parameter derRepresentation: The DER bytes.
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/invalidKey`` if the bytes are
    ///   not a P-256 SubjectPublicKeyInfo.
    public init(derRepresentation: Data) throws {
        self.init(backend: try PublicKeyBackend(derRepresentation: derRepresentation))
    }

    /// The key as a PEM `-----BEGIN PUBLIC KEY-----` block, the format `openssl ec -pubout` writes.
    public var pemRepresentation: String {
        backend.pemRepresentation
    }

    /// Compares the keys' SubjectPublicKeyInfo encodings.
    ///
    /// - Parameters:
    ///   - lhs: A key.
    ///   - rhs: Another key.
    /// - Returns: `true` if both are the same public key.
    public static func == (lhs: P256PublicKey, rhs: P256PublicKey) -> Bool {
        lhs.derRepresentation == rhs.derRepresentation
    }

    /// Feeds the key's DER encoding into `hasher`.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(derRepresentation)
    }

    /// A short fingerprint: the first 8 bytes of SHA-256 over the DER encoding, in hex.
    public var description: String {
        "P256PublicKey(sha256:\(SHA256.hash(derRepresentation).hexString.prefix(16)))"
    }
}
