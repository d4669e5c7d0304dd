public import Foundation
public import StratusCrypto

/// Checking server-to-server signatures: the server's side of the scheme (`StratusCrypto` signs).
extension ServerToServerSignature {
    /// Checks the signature of a server-to-server request.
    ///
    /// For an empty body both forms of the body hash are accepted, the empty
    /// string (what Apple's clients send) and the hash of zero bytes
    /// (`47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=`). Malformed base64 or DER,
    /// a tampered date, body or path, or another key's signature all return `false`.
    /// The date's freshness is a separate check: ``isDateAcceptable(_:now:tolerance:)``.
    ///
    /// - Parameters:
    ///   - signature: The `X-Apple-CloudKit-Request-SignatureV1` header value (base64 DER).
    ///   - date: The `X-Apple-CloudKit-Request-ISO8601Date` header value, exactly as received.
    ///   - body: The raw request body.
    ///   - path: The request target; a query is removed.
    ///   - publicKey: The registered public key for the request's key ID.
    /// - Returns: `true` if the signature is valid for this request.
    public static func isValidSignature(
        _ signature: String,
        date: String,
        body: Data,
        path: String,
        publicKey: P256PublicKey
    ) -> Bool {
        guard let der = Data(base64Encoded: signature), !der.isEmpty else { return false }
        let path = signedPath(path)
        #if canImport(CryptoKit)
        if publicKey.isValidSignature(der, for: Data(message(date: date, body: body, path: path).utf8)) { return true }
        // A body-less request may also be signed with the hash of the empty body.
        guard body.isEmpty else { return false }
        return publicKey.isValidSignature(der, for: Data(message(date: date, bodyHash: SHA256.hash(Data()).base64, path: path).utf8))
        #else
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SHA256Digest.byteCount) { buffer in
            guard let digest = buffer.baseAddress else { return false }
            messageDigest(date: date, body: body, path: path, into: digest)
            if publicKey.backend.key.verifySHA256(der, digest: digest) { return true }
            // A body-less request may also be signed with the hash of the empty body.
            guard body.isEmpty else { return false }
            messageDigest(date: date, body: body, emptyBodyHashed: true, path: path, into: digest)
            return publicKey.backend.key.verifySHA256(der, digest: digest)
        }
        #endif
    }
}
