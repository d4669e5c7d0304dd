public import Foundation

/// A NIST P-256 private key that makes ECDSA/SHA-256 signatures, such as a server-to-server signing key.
///
/// Read the file Apple's instructions produce
/// (`openssl ecparam -name prime256v1 -genkey -noout -out eckey.pem`), or make a new key:
///
/// ```swift
/// let key = try P256PrivateKey(pemRepresentation: String(contentsOfFile: "eckey.pem", encoding: .utf8))
/// let signature = try key.signature(for: Data("message".utf8))  // DER
/// key.publicKey.isValidSignature(signature, for: Data("message".utf8))  // true
///
/// let fresh = try P256PrivateKey()
/// let pem = fresh.pemRepresentation  // -----BEGIN PRIVATE KEY-----
/// ```
///
/// The key's `description` never shows key material. On Apple platforms the key is CryptoKit's
/// `P256.Signing.PrivateKey`; on Linux, OpenSSL's (Documentation/0014). Checking signatures is the
/// server's business (`StratusServerCrypto`).
public struct P256PrivateKey: Sendable, CustomStringConvertible {
    let key: SigningKeyBackend

    /// The matching public key.
    public let publicKey: P256PublicKey

    private init(key: SigningKeyBackend) throws {
        self.key = key
        // Re-read the public half from its encoding so the public key holds no private scalar.
        self.publicKey = try P256PublicKey(derRepresentation: key.publicKeyDER)
    }

    /// Generates a new random key.
    ///
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/keyGenerationFailed`` if OpenSSL fails.
    public init() throws {
        try self.init(key: SigningKeyBackend())
    }

    /// Reads a private key from PEM text.
    ///
    /// Accepts SEC 1 `-----BEGIN EC PRIVATE KEY-----` (what `openssl ecparam -genkey`
    /// writes, with or without a leading `EC PARAMETERS` block) and PKCS #8
    /// `-----BEGIN PRIVATE KEY-----`. Encrypted keys are rejected, never prompted for.
    ///
    /// - Parameter pemRepresentation: The PEM text.
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/invalidPEM`` if there is no
    ///   decodable private-key block, or ``CryptoError/Code/invalidKey`` if the key is
    ///   not a consistent EC key on P-256.
    public init(pemRepresentation: String) throws {
        try self.init(key: SigningKeyBackend(pemRepresentation: pemRepresentation))
    }

    /// The key as a PKCS #8 PEM `-----BEGIN PRIVATE KEY-----` block.
    public var pemRepresentation: String {
        key.pkcs8PEM
    }

    /// The key as a SEC 1 PEM `-----BEGIN EC PRIVATE KEY-----` block, the form `openssl ecparam -genkey` writes.
    public var ecPEMRepresentation: String {
        key.sec1PEM
    }

    /// Signs `message` with ECDSA over SHA-256.
    ///
    /// ECDSA is randomized: signing the same message twice gives different
    /// signatures, and both verify.
    ///
    /// - Parameter message: The bytes to sign (hashed with SHA-256 here, not by the caller).
    /// - Returns: The DER-encoded signature (`SEQUENCE { r, s }`, 70–72 bytes), the form
    ///   `openssl dgst -sha256 -sign` writes and CloudKit expects, base64-encoded, in
    ///   `X-Apple-CloudKit-Request-SignatureV1`.
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/signingFailed`` if the crypto library fails.
    public func signature(for message: Data) throws -> Data {
        try key.signature(for: message)
    }

    /// A redacted description that names only the public key.
    public var description: String {
        "P256PrivateKey(<redacted>, public: \(publicKey))"
    }
}
