public import Foundation

/// A NIST P-256 public key that checks ECDSA/SHA-256 signatures, such as a registered server-to-server key.
///
/// Read the key the dashboard holds, the output of `openssl ec -in eckey.pem -pubout`:
///
/// ```swift
/// let publicKey = try P256PublicKey(pemRepresentation: pastedPEM)
/// if publicKey.isValidSignature(derSignature, for: message) { … }
/// ```
///
/// Two keys are equal when their SubjectPublicKeyInfo encodings are.
public struct P256PublicKey: Sendable, Hashable, CustomStringConvertible {
    let key: EVPKey

    /// The key as DER-encoded SubjectPublicKeyInfo (91 bytes), suitable for storage.
    public let derRepresentation: Data

    init(key: EVPKey) {
        self.key = key
        self.derRepresentation = key.publicKeyDER()
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
        self.init(key: try EVPKey.readPublicKey(pem: pemRepresentation))
    }

    /// Reads a public key from DER-encoded SubjectPublicKeyInfo bytes, such as ``derRepresentation``.
    ///
    /// - Parameter derRepresentation: The DER bytes.
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/invalidKey`` if the bytes are
    ///   not a P-256 SubjectPublicKeyInfo.
    public init(derRepresentation: Data) throws {
        self.init(key: try EVPKey.readPublicKey(der: derRepresentation))
    }

    /// The key as a PEM `-----BEGIN PUBLIC KEY-----` block, the format `openssl ec -pubout` writes.
    public var pemRepresentation: String {
        key.publicKeyPEM()
    }

    /// Checks a DER-encoded ECDSA signature over SHA-256 of `message`.
    ///
    /// Never throws and never traps: a truncated, garbled or empty signature,
    /// a signature from another key or over another message all return `false`.
    ///
    /// ```swift
    /// let ok = publicKey.isValidSignature(signature, for: Data("hello".utf8))
    /// ```
    ///
    /// - Parameters:
    ///   - derSignature: The signature, an ASN.1 DER `SEQUENCE { r, s }`.
    ///   - message: The signed bytes (hashed with SHA-256 here, not by the caller).
    /// - Returns: `true` only if the signature is valid.
    public func isValidSignature(_ derSignature: Data, for message: Data) -> Bool {
        key.verifySHA256(derSignature, for: message)
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
