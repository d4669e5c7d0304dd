#if canImport(COpenSSL) && !canImport(CryptoKit)
import Foundation
import StratusCrypto

extension ServerToServerSignature {
    /// The verifier's hot path: the SHA-256 of `<date>:<body hash>:<path>`, hashed piece by piece.
    ///
    /// Neither the body hash's base64 text nor the message is built as a `String` or `Data`: the
    /// body's digest and its base64 form live in `scratch`, and the message is fed to one
    /// stack SHA-256 context. With an empty body the body-hash field is empty, or — for
    /// `emptyBodyHashed` — the base64 SHA-256 of zero bytes, which some clients sign instead.
    ///
    /// - Parameters:
    ///   - date: The date header, exactly as received.
    ///   - body: The raw request body.
    ///   - emptyBodyHashed: For an empty body, put the hash of zero bytes in the field instead of nothing.
    ///   - path: The signed path (already without a query).
    ///   - digest: Where the 32-byte digest goes.
    static func messageDigest(
        date: String, body: Data, emptyBodyHashed: Bool = false, path: String, into digest: UnsafeMutablePointer<UInt8>
    ) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: SHA256Digest.byteCount + Base64Text.digestLength) { scratch in
            guard let bodyDigest = scratch.baseAddress else { return }
            let bodyHash = bodyDigest + SHA256Digest.byteCount
            var bodyHashLength = 0
            if !body.isEmpty || emptyBodyHashed {
                body.withNonNullBytes { bytes, count in StackSHA256.hash(bytes, count: count, into: bodyDigest) }
                bodyHashLength = Base64Text.encode(UnsafePointer(bodyDigest), count: SHA256Digest.byteCount, into: bodyHash)
            }
            var hash = StackSHA256()
            hash.update(date)
            hash.update(byte: UInt8(ascii: ":"))
            hash.update(bodyHash, count: bodyHashLength)
            hash.update(byte: UInt8(ascii: ":"))
            hash.update(path)
            hash.finalize(into: digest)
        }
    }
}

/// Standard base64 (RFC 4648 §4, with padding) into a caller's buffer.
enum Base64Text {
    /// The length of a SHA-256 digest in base64: 44 characters.
    static let digestLength = 44

    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes `count` bytes at `bytes` into `output`, which must hold `4 * ((count + 2) / 3)` bytes.
    ///
    /// - Returns: The number of bytes written.
    static func encode(_ bytes: UnsafePointer<UInt8>, count: Int, into output: UnsafeMutablePointer<UInt8>) -> Int {
        alphabet.withUnsafeBufferPointer { table in
            var written = 0
            var index = 0
            while index < count {
                let first = UInt32(bytes[index])
                let second = index + 1 < count ? UInt32(bytes[index + 1]) : 0
                let third = index + 2 < count ? UInt32(bytes[index + 2]) : 0
                let group = first << 16 | second << 8 | third
                output[written] = table[Int(group >> 18 & 0x3F)]
                output[written + 1] = table[Int(group >> 12 & 0x3F)]
                output[written + 2] = index + 1 < count ? table[Int(group >> 6 & 0x3F)] : UInt8(ascii: "=")
                output[written + 3] = index + 2 < count ? table[Int(group & 0x3F)] : UInt8(ascii: "=")
                written += 4
                index += 3
            }
            return written
        }
    }
}
#endif
