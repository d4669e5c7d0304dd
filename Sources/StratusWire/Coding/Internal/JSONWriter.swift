/// Writes ``JSONValue`` as canonical JSON text: sorted keys, unescaped `/`, doubles with a fraction.
struct JSONWriter {
    private(set) var output: [UInt8] = []
    let prettyPrinted: Bool

    init(prettyPrinted: Bool) {
        self.prettyPrinted = prettyPrinted
    }

    mutating func write(_ value: JSONValue, depth: Int) throws(WireError) {
        switch value {
        case .null: append("null")
        case .bool(let bool): append(bool ? "true" : "false")
        case .integer(let integer): append(String(integer))
        case .double(let double): try writeDouble(double)
        case .string(let string): writeString(string)
        case .array(let elements):
            guard !elements.isEmpty else { return append("[]") }
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth: depth + 1)
                try write(element, depth: depth + 1)
            }
            newline(depth: depth)
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            guard !members.isEmpty else { return append("{}") }
            output.append(UInt8(ascii: "{"))
            for (offset, key) in members.keys.sorted().enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                newline(depth: depth + 1)
                writeString(key)
                append(prettyPrinted ? ": " : ":")
                if let member = members[key] { try write(member, depth: depth + 1) }
            }
            newline(depth: depth)
            output.append(UInt8(ascii: "}"))
        }
    }

    private mutating func append(_ text: String) {
        output.append(contentsOf: text.utf8)
    }

    private mutating func newline(depth: Int) {
        guard prettyPrinted else { return }
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }

    private mutating func writeDouble(_ double: Double) throws(WireError) {
        guard double.isFinite else {
            throw WireError(code: .invalidValue, message: "cannot write \(double) as JSON: JSON has no NaN or infinity")
        }
        // NB: Swift's shortest round-trip description always carries a fraction or an
        // exponent ("2.0", "1e-07", "1e+20"), all of which are valid JSON numbers.
        append(double.description)
    }

    private mutating func writeString(_ string: String) {
        output.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case 0x22: append("\\\"")
            case 0x5C: append("\\\\")
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x08: append("\\b")
            case 0x0C: append("\\f")
            case 0x00..<0x20:
                let hex = String(byte, radix: 16)
                append("\\u00" + (hex.count == 1 ? "0" + hex : hex))
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
