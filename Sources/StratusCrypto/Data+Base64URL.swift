public import Foundation

extension Data {
    /// Encodes the bytes as unpadded base64url (RFC 4648 §5): `-` and `_` instead of `+` and `/`, no `=`.
    ///
    /// Safe in URLs, query strings and file names without escaping.
    ///
    /// ```swift
    /// Data([0xfb, 0xff]).base64URLEncodedString()  // "-_8"
    /// ```
    ///
    /// - Returns: The encoded text.
    public func base64URLEncodedString() -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity((count + 2) / 3 * 4)
        for byte in base64EncodedString().utf8 {
            switch byte {
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): bytes.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Decodes base64url text (RFC 4648 §5), with or without `=` padding.
    ///
    /// Characters of the standard alphabet that base64url replaces (`+`, `/`),
    /// whitespace and misplaced padding are rejected: the initializer fails and
    /// returns `nil`.
    ///
    /// ```swift
    /// Data(base64URLEncoded: "-_8")  // Data([0xfb, 0xff])
    /// ```
    ///
    /// - Parameter text: The text to decode.
    public init?(base64URLEncoded text: String) {
        var body = Array(text.utf8)
        var padding = 0
        while body.last == UInt8(ascii: "=") {
            body.removeLast()
            padding += 1
        }
        guard padding <= 2, body.count % 4 != 1 else { return nil }
        if padding > 0, (body.count + padding) % 4 != 0 { return nil }
        var standard: [UInt8] = []
        standard.reserveCapacity(body.count + 3)
        for byte in body {
            switch byte {
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                standard.append(byte)
            default: return nil
            }
        }
        while standard.count % 4 != 0 { standard.append(UInt8(ascii: "=")) }
        guard let decoded = Data(base64Encoded: Data(standard)) else { return nil }
        self = decoded
    }
}
