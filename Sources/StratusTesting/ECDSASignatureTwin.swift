public import Foundation

/// The malleated twin of a P-256 ECDSA signature, for tests of signature replay.
///
/// Every ECDSA signature `(r, s)` has a second form `(r, n − s)`, with `n` the order of the
/// curve's group, that verifies for the same message and key.
///
/// ```swift
/// import StratusServerCrypto
///
/// let twin = ECDSASignatureTwin.of(derSignature)
/// #expect(key.publicKey.isValidSignature(twin, for: message))
/// ```
public enum ECDSASignatureTwin {
    /// The order n of the P-256 group, big-endian.
    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    /// `(r, n − s)` as DER, for a DER `SEQUENCE { INTEGER r, INTEGER s }` with short-form lengths.
    ///
    /// - Parameter der: A P-256 signature in DER, as `P256PrivateKey.signature(for:)` returns.
    /// - Returns: Its twin in DER.
    public static func of(_ der: Data) -> Data {
        let bytes = [UInt8](der)
        let rLength = Int(bytes[3])
        let r = Array(bytes[4..<(4 + rLength)])
        let s = Array(bytes[(6 + rLength)...].drop { $0 == 0 })
        var value = [UInt8](repeating: 0, count: 32 - s.count) + s
        var borrow = 0
        for index in (0..<32).reversed() {
            let difference = Int(order[index]) - Int(value[index]) - borrow
            value[index] = UInt8((difference + 256) % 256)
            borrow = difference < 0 ? 1 : 0
        }
        var twin = Array(value.drop { $0 == 0 })
        if let first = twin.first, first >= 0x80 { twin.insert(0, at: 0) }
        let body = [0x02, UInt8(r.count)] + r + [0x02, UInt8(twin.count)] + twin
        return Data([0x30, UInt8(body.count)] + body)
    }
}
