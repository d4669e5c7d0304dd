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

/// Lowercase hexadecimal, both ways: the one encoder of digests, random tokens, API-token hashes
/// and web auth token session IDs.
package enum Hex {
    /// The lowercase hex digit of a nibble (0…15).
    @inline(__always)
    private static func digit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 &+ nibble : 0x57 &+ nibble
    }

    /// Encodes `bytes` as lowercase hex, two characters per byte, written straight into the string's storage.
    package static func encode(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            var written = 0
            for byte in bytes {
                text[written] = digit(byte >> 4)
                text[written + 1] = digit(byte & 0x0F)
                written += 2
            }
            return written
        }
    }

    /// Encodes `bytes` as lowercase hex, two characters per byte.
    package static func encode(_ bytes: some Sequence<UInt8>) -> String {
        if let encoded = bytes.withContiguousStorageIfAvailable({ encode(UnsafeRawBufferPointer($0)) }) { return encoded }
        return encode(Array(bytes))
    }

    /// Writes the bytes `text` spells in hex to `bytes`; `false` unless `text` is exactly
    /// `2 × bytes.count` lowercase hex digits (`bytes` may then be partly written).
    package static func decode(_ text: String, into bytes: UnsafeMutableRawBufferPointer) -> Bool {
        guard text.utf8.count == 2 * bytes.count else { return false }
        var index = 0
        var high: UInt8?
        for digit in text.utf8 {
            guard let nibble = value(digit) else { return false }
            if let first = high {
                bytes[index] = first << 4 | nibble
                index += 1
                high = nil
            } else {
                high = nibble
            }
        }
        return true
    }

    /// Whether `text` is `count` lowercase hex characters.
    package static func isLowercaseHex(_ text: String, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { value($0) != nil }
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
