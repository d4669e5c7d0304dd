import Foundation
public import StratusCrypto

extension ServerToServerSignature {
    /// What every valid form of one ECDSA signature has in common, to recognise a signature used twice.
    ///
    /// An ECDSA signature `(r, s)` has a twin `(r, n − s)` that verifies just as well (signature
    /// malleability), and the signed message leaves out the query string, so a captured request
    /// can be sent again with an added query or a flipped `s`. The identity is therefore built
    /// from the key ID and `r` alone (what low-`s` normalisation would keep): the same for both
    /// twins, and different for every fresh signature, since `r` comes from a new random nonce
    /// each time (two requests with the same body, path and date still differ).
    ///
    /// It is the first 128 bits of SHA-256(key ID ‖ 0 ‖ r), a fixed 16 bytes to remember.
    public struct Identity: Hashable, Sendable {
        /// The first 64 bits.
        public var high: UInt64
        /// The next 64 bits.
        public var low: UInt64

        /// An identity from its two halves (tests; ``replayIdentity(ofSignature:keyID:)`` makes real ones).
        public init(high: UInt64, low: UInt64) {
            self.high = high
            self.low = low
        }
    }

    /// The identity of a signature header value (base64 DER `SEQUENCE { r, s }`) made with `keyID`.
    ///
    /// ```swift
    /// import StratusCrypto
    /// import StratusServerCrypto
    ///
    /// let identity = ServerToServerSignature.replayIdentity(ofSignature: header, keyID: keyID)
    /// ```
    ///
    /// - Parameters:
    ///   - signature: The `X-Apple-CloudKit-Request-SignatureV1` header value.
    ///   - keyID: The key ID the request names.
    /// - Returns: The identity, or `nil` when the value is not a base64 DER ECDSA signature.
    public static func replayIdentity(ofSignature signature: String, keyID: String) -> Identity? {
        guard let der = Data(base64Encoded: signature), let r = integerR(ofDER: der) else { return nil }
        var hasher = SHA256()
        hasher.update(Data(keyID.utf8))
        hasher.update(Data([0]))
        hasher.update(r)
        let digest = hasher.finalize().data
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (index, byte) in digest.prefix(16).enumerated() {
            if index < 8 { high = high << 8 | UInt64(byte) } else { low = low << 8 | UInt64(byte) }
        }
        return Identity(high: high, low: low)
    }

    /// The magnitude bytes of `r` (no leading zeros) of a DER `SEQUENCE { INTEGER r, INTEGER s }`
    /// with short-form lengths, as every P-256 signature has (at most 72 bytes).
    static func integerR(ofDER der: Data) -> Data? {
        let bytes = [UInt8](der)
        guard bytes.count >= 8, bytes[0] == 0x30, Int(bytes[1]) == bytes.count - 2, bytes[1] < 0x80, bytes[2] == 0x02 else { return nil }
        let length = Int(bytes[3])
        guard (1...33).contains(length), 4 + length + 2 <= bytes.count, bytes[4 + length] == 0x02 else { return nil }
        let magnitude = bytes[4..<(4 + length)].drop { $0 == 0 }
        return magnitude.isEmpty ? nil : Data(magnitude)
    }
}
