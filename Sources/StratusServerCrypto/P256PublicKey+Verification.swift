public import Foundation
public import StratusCrypto

#if canImport(CryptoKit)
import CryptoKit
#endif

/// Signature checks: the server's side of P-256 (a client signs, it never verifies), through
/// CryptoKit on Apple platforms and OpenSSL on Linux.
extension P256PublicKey {
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
        #if canImport(CryptoKit)
        guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: derSignature) else { return false }
        return backend.key.isValidSignature(signature, for: message)
        #else
        return backend.key.verifySHA256(derSignature, for: message)
        #endif
    }
}

extension P256PublicKey {
    /// Checks an ES256 (JWS) signature, `r ‖ s` in 64 bytes, over SHA-256 of `message`.
    ///
    /// Never throws: a signature of any other length, a garbled one or one by another key is `false`.
    ///
    /// ```swift
    /// let valid = key.publicKey.isValidRawSignature(try key.rawSignature(for: message), for: message)
    /// ```
    ///
    /// - Parameters:
    ///   - rawSignature: `r ‖ s`, 32 bytes each.
    ///   - message: The signed bytes.
    /// - Returns: `true` only if the signature is valid.
    public func isValidRawSignature(_ rawSignature: Data, for message: Data) -> Bool {
        guard let der = Self.derSignature(fromRaw: rawSignature) else { return false }
        return isValidSignature(der, for: message)
    }
}
