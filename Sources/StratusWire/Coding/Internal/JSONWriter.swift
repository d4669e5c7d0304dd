/// Writes canonical JSON text into a byte buffer: sorted keys, unescaped `/`, doubles with a fraction.
///
/// Two ways in: ``write(_:depth:)`` serializes a ``JSONValue`` tree (the reference path), and the
/// primitives (``writeString(_:)``, ``writeInteger(_:)``, ``beginMember(_:first:)``, …) let a
/// ``JSONDirectEncodable`` type write itself without building a tree. Both produce the same bytes
/// for the same value: strings are escaped by one function and numbers formatted by one function.
/// Other modules of the package (the server's push outbox) write their own stored JSON with it.
package struct JSONWriter {
    package private(set) var output: [UInt8] = []
    let prettyPrinted: Bool
    /// Whether ``FieldValue`` writes INT64, DOUBLE and TIMESTAMP values as JSON strings (direct path only).
    let numbersAsStrings: Bool

    package init(prettyPrinted: Bool = false, numbersAsStrings: Bool = false, capacity: Int = 0) {
        self.prettyPrinted = prettyPrinted
        self.numbersAsStrings = numbersAsStrings
        output.reserveCapacity(capacity)
    }

    mutating func write(_ value: JSONValue, depth: Int) throws(WireError) {
        switch value {
        case .null: writeRaw("null")
        case .bool(let bool): writeBool(bool)
        case .integer(let integer): writeInteger(integer)
        case .double(let double): try writeDouble(double)
        case .string(let string): writeString(string)
        case .array(let elements):
            guard !elements.isEmpty else { return writeRaw("[]") }
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth: depth + 1)
                try write(element, depth: depth + 1)
            }
            newline(depth: depth)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { return writeRaw("{}") }
            output.append(UInt8(ascii: "{"))
            // NB: sorting the pairs (keys are unique) gives the same order as sorting the keys,
            // without a hash lookup per key afterwards.
            for (offset, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth: depth + 1)
                writeString(member.key)
                if prettyPrinted { writeRaw(": ") } else { output.append(UInt8(ascii: ":")) }
                try write(member.value, depth: depth + 1)
            }
            newline(depth: depth)
            output.append(UInt8(ascii: "}"))
        }
    }

    private mutating func newline(depth: Int) {
        guard prettyPrinted else { return }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }

    // MARK: Primitives shared by the tree writer and the direct writers

    /// Appends ASCII text verbatim (punctuation, literals, keys that need no escaping).
    package mutating func writeRaw(_ text: StaticString) {
        text.withUTF8Buffer { output.append(contentsOf: $0) }
    }

    /// Appends one ASCII byte.
    package mutating func writeByte(_ byte: UInt8) {
        output.append(byte)
    }

    /// Writes `,` unless this is the first member, then `"key":`. Keys must need no escaping.
    ///
    /// Direct writers call this in sorted key order, so the output matches the tree writer's.
    package mutating func beginMember(_ key: StaticString, first: inout Bool) {
        if first { first = false } else { output.append(UInt8(ascii: ",")) }
        output.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { output.append(contentsOf: $0) }
        output.append(UInt8(ascii: "\""))
        output.append(UInt8(ascii: ":"))
    }

    mutating func writeBool(_ bool: Bool) {
        if bool { writeRaw("true") } else { writeRaw("false") }
    }

    /// Writes the decimal digits of `value`, exactly as `String(value)` spells them.
    package mutating func writeInteger(_ value: Int64) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits = 1
        var rest = magnitude / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        let end = output.count + digits
        output.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        output.withUnsafeMutableBufferPointer { buffer in
            var index = end - 1
            repeat {
                buffer[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
                index -= 1
            } while magnitude > 0
        }
    }

    /// Writes `"123"`: the integer's digits as a JSON string (`numbersAsStrings`).
    mutating func writeIntegerString(_ value: Int64) {
        output.append(UInt8(ascii: "\""))
        writeInteger(value)
        output.append(UInt8(ascii: "\""))
    }

    mutating func writeDouble(_ double: Double) throws(WireError) {
        guard double.isFinite else {
            throw WireError(code: .invalidValue, message: "cannot write \(double) as JSON: JSON has no NaN or infinity")
        }
        // NB: Swift's shortest round-trip description always carries a fraction or an
        // exponent ("2.0", "1e-07", "1e+20"), all of which are valid JSON numbers.
        output.append(contentsOf: double.description.utf8)
    }

    /// Writes a JSON string: `"` and `\` escaped, control characters as `\n`-style or `\u00XX` escapes.
    package mutating func writeString(_ string: String) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { appendEscaped($0) }
        output.append(UInt8(ascii: "\""))
    }

    /// Appends UTF-8 text, copying runs that need no escaping in one go.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
            if runStart < index { output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index])) }
            appendEscape(for: byte)
            runStart = index + 1
        }
        if runStart < utf8.count { output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...])) }
    }

    /// A lowercase hex digit, as `String(_:radix: 16)` writes it.
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    private mutating func appendEscape(for byte: UInt8) {
        switch byte {
        case 0x22: writeRaw("\\\"")
        case 0x5C: writeRaw("\\\\")
        case 0x0A: writeRaw("\\n")
        case 0x0D: writeRaw("\\r")
        case 0x09: writeRaw("\\t")
        case 0x08: writeRaw("\\b")
        case 0x0C: writeRaw("\\f")
        default:
            writeRaw("\\u00")
            output.append(Self.hexDigit(byte >> 4))
            output.append(Self.hexDigit(byte & 0x0F))
        }
    }
}
