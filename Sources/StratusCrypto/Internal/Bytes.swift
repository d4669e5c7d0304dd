import Foundation

extension Data {
    /// Calls `body` with a pointer to the bytes that is never `nil`, even for empty data.
    ///
    /// C functions such as `HMAC()` and `EVP_DigestVerify()` may reject or
    /// dereference a `NULL` buffer even when its length is zero, so an empty
    /// value is passed as a pointer to a one-byte scratch buffer with length 0.
    package func withNonNullBytes<Result>(
        _ body: (UnsafePointer<UInt8>, Int) throws -> Result
    ) rethrows -> Result {
        try withUnsafeBytes { raw -> Result in
            if let base = raw.baseAddress, raw.count > 0 {
                return try body(base.assumingMemoryBound(to: UInt8.self), raw.count)
            }
            var scratch: UInt8 = 0
            return try withUnsafePointer(to: &scratch) { try body($0, 0) }
        }
    }
}

/// Lowercase hexadecimal encoding.
package enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// Encodes `bytes` as lowercase hex, two characters per byte.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var utf8: [UInt8] = []
        utf8.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            utf8.append(digits[Int(byte >> 4)])
            utf8.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: utf8, as: UTF8.self)
    }
}
