import Foundation

/// Reads DER TLVs (tag, length, value) one after another: just enough ASN.1 for EC keys.
///
/// Pure Swift and strict: definite lengths only, no length longer than the input. Anything else
/// is `nil`, which the key readers turn into ``CryptoError/Code/invalidKey``.
struct DERReader {
    /// A universal or context tag byte.
    enum Tag {
        static let integer: UInt8 = 0x02
        static let bitString: UInt8 = 0x03
        static let octetString: UInt8 = 0x04
        static let objectIdentifier: UInt8 = 0x06
        static let sequence: UInt8 = 0x30
        static let context0: UInt8 = 0xA0
        static let context1: UInt8 = 0xA1
    }

    private let bytes: [UInt8]
    private var offset = 0

    init(_ data: Data) {
        bytes = [UInt8](data)
    }

    /// Whether every byte was read.
    var isAtEnd: Bool { offset == bytes.count }

    /// The tag of the next element, without reading it.
    var nextTag: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    /// Reads the next element, which must have `tag`, and returns its value bytes.
    mutating func read(_ tag: UInt8) -> Data? {
        guard offset + 2 <= bytes.count, bytes[offset] == tag else { return nil }
        var cursor = offset + 1
        var length = Int(bytes[cursor])
        cursor += 1
        if length >= 0x80 {
            let count = length & 0x7F
            guard (1...3).contains(count), cursor + count <= bytes.count else { return nil }
            length = bytes[cursor..<(cursor + count)].reduce(0) { $0 << 8 | Int($1) }
            cursor += count
        }
        guard length <= bytes.count - cursor else { return nil }
        offset = cursor + length
        return Data(bytes[cursor..<offset])
    }

    /// The DER encoding of one element: `tag`, its length, `value`.
    static func element(_ tag: UInt8, _ value: Data) -> Data {
        var encoded = Data([tag])
        switch value.count {
        case ..<0x80: encoded.append(UInt8(value.count))
        case ..<0x100: encoded.append(contentsOf: [0x81, UInt8(value.count)])
        default: encoded.append(contentsOf: [0x82, UInt8(value.count >> 8), UInt8(value.count & 0xFF)])
        }
        return encoded + value
    }
}
