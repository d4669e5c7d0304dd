import Foundation

/// Converts P-256 ECDSA signatures between DER (`SEQUENCE { INTEGER r, INTEGER s }`, what the
/// signers make and the verifiers check) and the fixed-size `r ‖ s` form of JWS (RFC 7518 §3.4:
/// 32 bytes each, big-endian).
///
/// Pure Swift on ``DERReader``, so it is the same on every platform (CryptoKit or OpenSSL).
enum ECDSASignatureEncoding {
    /// The size of `r` or `s` on P-256.
    static let scalarSize = 32

    /// `r ‖ s` (64 bytes) of a DER signature.
    ///
    /// - Throws: ``CryptoError`` with ``CryptoError/Code/signingFailed`` if `der` is not an ECDSA signature.
    static func raw(fromDER der: Data) throws -> Data {
        var outer = DERReader(der)
        guard let body = outer.read(DERReader.Tag.sequence), outer.isAtEnd else {
            throw CryptoError(code: .signingFailed, message: "the DER signature could not be parsed")
        }
        var inner = DERReader(body)
        guard let r = inner.read(DERReader.Tag.integer), let s = inner.read(DERReader.Tag.integer), inner.isAtEnd,
            let rawR = fixedSize(r), let rawS = fixedSize(s)
        else {
            throw CryptoError(code: .signingFailed, message: "the DER signature's r or s is not a positive integer of at most 32 bytes")
        }
        return rawR + rawS
    }

    /// The DER form of an `r ‖ s` signature; `nil` unless it is exactly 64 bytes.
    static func der(fromRaw raw: Data) -> Data? {
        guard raw.count == 2 * scalarSize else { return nil }
        let bytes = [UInt8](raw)
        let r = integer(bytes[0..<scalarSize])
        let s = integer(bytes[scalarSize...])
        return DERReader.element(DERReader.Tag.sequence, DERReader.element(DERReader.Tag.integer, r) + DERReader.element(DERReader.Tag.integer, s))
    }

    /// A DER INTEGER's content bytes as 32 big-endian bytes; `nil` for a negative or too large one.
    private static func fixedSize(_ value: Data) -> Data? {
        var bytes = [UInt8](value)
        guard let first = bytes.first, first & 0x80 == 0 else { return nil }
        while bytes.count > 1, bytes[0] == 0 { bytes.removeFirst() }
        guard bytes.count <= scalarSize else { return nil }
        return Data(repeating: 0, count: scalarSize - bytes.count) + Data(bytes)
    }

    /// The minimal DER INTEGER content of an unsigned big-endian scalar.
    private static func integer(_ scalar: ArraySlice<UInt8>) -> Data {
        var bytes = Array(scalar.drop { $0 == 0 })
        if bytes.isEmpty { bytes = [0] }
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return Data(bytes)
    }
}
