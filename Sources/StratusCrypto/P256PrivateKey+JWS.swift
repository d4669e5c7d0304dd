public import Foundation

extension P256PrivateKey {
    /// Signs `message` with ECDSA over SHA-256 and returns the signature as JWS wants it
    /// (ES256, RFC 7518 §3.4): `r ‖ s`, 32 bytes each, 64 in all — not DER.
    ///
    /// APNs provider tokens and other JSON Web Tokens carry this form, base64url-encoded.
    ///
    /// ```swift
    /// let signingInput = header + "." + claims
    /// let token = signingInput + "." + (try key.rawSignature(for: Data(signingInput.utf8))).base64URLEncodedString()
    /// ```
    ///
    /// - Parameter message: The bytes to sign (hashed with SHA-256 here).
    /// - Returns: 64 bytes.
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/signingFailed`` if OpenSSL fails.
    public func rawSignature(for message: Data) throws -> Data {
        try ECDSASignatureEncoding.raw(fromDER: signature(for: message))
    }
}

extension P256PublicKey {
    /// The DER form of an ES256 (JWS) signature `r ‖ s` (32 bytes each), for checking it with a
    /// verifier that takes DER; `nil` for anything that is not 64 bytes.
    ///
    /// - Parameter rawSignature: `r ‖ s`.
    /// - Returns: The DER `SEQUENCE { r, s }`, or `nil`.
    public static func derSignature(fromRaw rawSignature: Data) -> Data? {
        ECDSASignatureEncoding.der(fromRaw: rawSignature)
    }
}
