import Foundation
internal import COpenSSL

/// Converts P-256 ECDSA signatures between DER (`SEQUENCE { INTEGER r, INTEGER s }`, what OpenSSL
/// makes and checks) and the fixed-size `r ‖ s` form of JWS (RFC 7518 §3.4: 32 bytes each, big-endian).
enum ECDSASignatureEncoding {
    /// The size of `r` or `s` on P-256.
    static let scalarSize = 32

    /// `r ‖ s` (64 bytes) of a DER signature.
    ///
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/signingFailed`` if `der` is not an ECDSA signature.
    static func raw(fromDER der: Data) throws -> Data {
        let parsed: OpaquePointer? = der.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature = parsed else {
            throw OpenSSLErrorQueue.error(.signingFailed, "the DER signature could not be parsed")
        }
        defer { ECDSA_SIG_free(signature) }
        var raw = Data(count: 2 * scalarSize)
        let written = raw.withUnsafeMutableBytes { buffer -> Bool in
            guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self),
                let r = ECDSA_SIG_get0_r(signature), let s = ECDSA_SIG_get0_s(signature)
            else { return false }
            return BN_bn2binpad(r, base, Int32(scalarSize)) == scalarSize
                && BN_bn2binpad(s, base + scalarSize, Int32(scalarSize)) == scalarSize
        }
        guard written else { throw OpenSSLErrorQueue.error(.signingFailed, "r or s does not fit in 32 bytes") }
        return raw
    }

    /// The DER form of an `r ‖ s` signature; `nil` unless it is exactly 64 bytes.
    static func der(fromRaw raw: Data) -> Data? {
        guard raw.count == 2 * scalarSize, let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let set = raw.withUnsafeBytes { buffer -> Bool in
            guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
            guard let r = BN_bin2bn(base, Int32(scalarSize), nil) else { return false }
            guard let s = BN_bin2bn(base + scalarSize, Int32(scalarSize), nil) else {
                BN_free(r)
                return false
            }
            // > ECDSA_SIG_set0() … Calling this function transfers the memory management of the values to the ECDSA_SIG object.
            guard ECDSA_SIG_set0(signature, r, s) == 1 else {
                BN_free(r)
                BN_free(s)
                return false
            }
            return true
        }
        guard set else {
            OpenSSLErrorQueue.clear()
            return nil
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { return nil }
        var der = Data(count: Int(length))
        let written = der.withUnsafeMutableBytes { buffer -> Int32 in
            guard let base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return 0 }
            var cursor: UnsafeMutablePointer<UInt8>? = base
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        return written == length ? der : nil
    }
}
