import StratusWire

// The parser and writer as they were before the byte-level speedups, kept verbatim (renamed) as
// the reference the optimized ones are fuzzed against in JSONParserWriterEquivalenceTests.

/// A recursive-descent JSON parser that produces ``JSONValue`` without losing integer precision.
struct ReferenceJSONParser {
    /// Deepest nesting accepted, so hostile input cannot exhaust the stack.
    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var index = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(WireError) -> JSONValue {
        // NB: skip a UTF-8 byte-order mark; some clients send one.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        skipWhitespace()
        let value = try parseValue(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected \(describeCurrent()) after the JSON value") }
        return value
    }

    private func failure(_ message: String) -> WireError {
        WireError(code: .invalidJSON, message: "invalid JSON: \(message) at byte \(index)")
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of input" }
        let byte = bytes[index]
        if byte >= 0x20 && byte < 0x7F { return "character '\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16))"
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue(depth: Int) throws(WireError) -> JSONValue {
        guard depth <= Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth) levels") }
        guard index < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected \(describeCurrent())")
        }
    }

    private mutating func expectLiteral(_ literal: String) throws(WireError) {
        let expected = Array(literal.utf8)
        let count = expected.count
        guard index + count <= bytes.count, bytes[index..<index + count].elementsEqual(expected) else {
            throw failure("unexpected \(describeCurrent())")
        }
        index += count
    }

    private mutating func parseObject(depth: Int) throws(WireError) -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure("expected a string key but found \(describeCurrent())")
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw failure("expected ':' but found \(describeCurrent())")
            }
            index += 1
            skipWhitespace()
            members[key] = try parseValue(depth: depth + 1)
            skipWhitespace()
            guard index < bytes.count else { throw failure("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            } else {
                throw failure("expected ',' or '}' but found \(describeCurrent())")
            }
        }
    }

    private mutating func parseArray(depth: Int) throws(WireError) -> JSONValue {
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw failure("unterminated array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            } else {
                throw failure("expected ',' or ']' but found \(describeCurrent())")
            }
        }
    }

    private mutating func parseString() throws(WireError) -> String {
        index += 1
        var utf8: [UInt8] = []
        while true {
            guard index < bytes.count else { throw failure("unterminated string") }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let string = String(validating: utf8, as: UTF8.self) else {
                    throw failure("string is not valid UTF-8")
                }
                return string
            case UInt8(ascii: "\\"):
                index += 1
                try parseEscape(into: &utf8)
            case 0x00..<0x20:
                throw failure("unescaped control character in string")
            default:
                utf8.append(byte)
                index += 1
            }
        }
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(WireError) {
        guard index < bytes.count else { throw failure("unterminated escape") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): utf8.append(0x22)
        case UInt8(ascii: "\\"): utf8.append(0x5C)
        case UInt8(ascii: "/"): utf8.append(0x2F)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalarValue = UInt32(try parseHex4())
            if (0xD800..<0xDC00).contains(scalarValue) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u")
                else { throw failure("lone high surrogate in \\u escape") }
                index += 2
                let low = UInt32(try parseHex4())
                guard (0xDC00..<0xE000).contains(low) else { throw failure("invalid low surrogate in \\u escape") }
                scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalarValue) {
                throw failure("lone low surrogate in \\u escape")
            }
            guard let scalar = Unicode.Scalar(scalarValue) else { throw failure("invalid \\u escape") }
            utf8.append(contentsOf: String(Character(scalar)).utf8)
        default:
            index -= 1
            throw failure("invalid escape \(describeCurrent())")
        }
    }

    private mutating func parseHex4() throws(WireError) -> UInt16 {
        guard index + 4 <= bytes.count else { throw failure("truncated \\u escape") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(WireError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("number with a leading zero") }
        } else {
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid number fraction") }
            skipDigits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid number exponent") }
            skipDigits()
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else { throw failure("number \(text) is out of range") }
        return .double(double)
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
}

/// Writes ``JSONValue`` as canonical JSON text: sorted keys, unescaped `/`, doubles with a fraction.
struct ReferenceJSONWriter {
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
