public import Foundation

extension FuzzInput {
    /// Splits an input into `count` text fields at newlines (the last takes the rest, newlines and
    /// all), so one input can carry a date, a signature, a path and a body.
    ///
    /// - Parameters:
    ///   - input: The bytes (invalid UTF-8 is repaired, as a header value would be).
    ///   - count: How many fields; missing ones are empty.
    /// - Returns: Exactly `count` strings.
    public static func fields(_ input: Data, count: Int) -> [String] {
        var fields: [String] = []
        var rest = input[...]
        while fields.count < count - 1, let newline = rest.firstIndex(of: UInt8(ascii: "\n")) {
            fields.append(String(decoding: rest[..<newline], as: UTF8.self))
            rest = rest[rest.index(after: newline)...]
        }
        fields.append(String(decoding: rest, as: UTF8.self))
        while fields.count < count { fields.append("") }
        return fields
    }
}

/// Reads numbers from the front of an input, for targets that build values from bytes.
public struct FuzzBytes {
    private var bytes: Data.SubSequence

    /// Reads from `data`.
    public init(_ data: Data) { bytes = data[...] }

    /// Whether every byte has been read.
    public var isEmpty: Bool { bytes.isEmpty }

    /// The next byte, or 0 past the end.
    public mutating func byte() -> UInt8 {
        guard let first = bytes.first else { return 0 }
        bytes = bytes.dropFirst()
        return first
    }

    /// The next eight bytes as a big-endian integer (missing bytes read as 0).
    public mutating func int64() -> Int64 {
        var value: UInt64 = 0
        for _ in 0..<8 { value = value << 8 | UInt64(byte()) }
        return Int64(bitPattern: value)
    }

    /// The next `count` bytes (fewer at the end).
    public mutating func take(_ count: Int) -> Data {
        let taken = bytes.prefix(count)
        bytes = bytes.dropFirst(count)
        return Data(taken)
    }

    /// Everything not read yet.
    public mutating func rest() -> Data {
        defer { bytes = bytes.suffix(0) }
        return Data(bytes)
    }
}
