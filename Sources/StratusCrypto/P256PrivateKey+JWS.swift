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
    /// Checks an ES256 (JWS) signature, `r ‖ s` in 64 bytes, over SHA-256 of `message`.
    ///
    /// Never throws: a signature of any other length, a garbled one or one by another key is `false`.
    ///
    /// - Parameters:
    ///   - rawSignature: `r ‖ s`, 32 bytes each.
    ///   - message: The signed bytes.
    /// - Returns: `true` only if the signature is valid.
    public func isValidRawSignature(_ rawSignature: Data, for message: Data) -> Bool {
        guard let der = ECDSASignatureEncoding.der(fromRaw: rawSignature) else { return false }
        return isValidSignature(der, for: message)
    }
}
