/// A recursive-descent JSON parser that produces ``JSONValue`` without losing integer precision.
struct JSONParser {
    /// Deepest nesting accepted, so hostile input cannot exhaust the stack.
    static let maximumDepth = 512

    private let bytes: [UInt8]
    private var index = 0
    /// The members of the objects being parsed, innermost last.
    private var pendingMembers: [(key: String, value: JSONValue)] = []

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
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object([:])
        }
        // NB: members are collected on a shared stack and the dictionary is built once at its final
        // size, instead of growing (and rehashing) a dictionary per object. A repeated key keeps its
        // last value, as before.
        let base = pendingMembers.count
        defer { pendingMembers.removeSubrange(base...) }
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
            let value = try parseValue(depth: depth + 1)
            pendingMembers.append((key, value))
            skipWhitespace()
            guard index < bytes.count else { throw failure("unterminated object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                var members = [String: JSONValue](minimumCapacity: pendingMembers.count - base)
                for offset in base..<pendingMembers.count {
                    members[pendingMembers[offset].key] = pendingMembers[offset].value
                }
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
        // Fast path: no escapes, so the string is a slice of the input (validated as UTF-8).
        var end = index
        var ascii = true
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                guard let string = slice(index, end, ascii: ascii) else { break }
                index = end + 1
                return string
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
            if byte >= 0x80 { ascii = false }
            end += 1
        }
        // NB: the slow path below reports the same errors (control character, bad UTF-8, …) at
        // the same offsets as before.
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

    /// The bytes `start..<end` as a string, or `nil` if they are not valid UTF-8 (`ascii`: all below 0x80).
    private func slice(_ start: Int, _ end: Int, ascii: Bool) -> String? {
        bytes.withUnsafeBufferPointer { buffer in
            let slice = UnsafeBufferPointer(rebasing: buffer[start..<end])
            // NB: ASCII is valid UTF-8 as it is, and `String(decoding:as:)` copies it without the
            // generic `String(validating:as:)`, which looked up generic metadata for every string —
            // 8 % of a change-feed page's CPU (server and client parse JSON alike).
            return ascii ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
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
        if isInteger, let integer = integerValue(start, index) { return .integer(integer) }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let double = Double(text), double.isFinite else { throw failure("number \(text) is out of range") }
        return .double(double)
    }

    /// The integer spelled by `-?[0-9]+` at `start..<end`, or `nil` if it does not fit in `Int64`
    /// (exactly when `Int64(text)` would fail).
    private func integerValue(_ start: Int, _ end: Int) -> Int64? {
        var position = start
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        var magnitude: UInt64 = 0
        while position < end {
            let (scaled, overflowScaling) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflowAdding) = scaled.addingReportingOverflow(UInt64(bytes[position] - UInt8(ascii: "0")))
            guard !overflowScaling, !overflowAdding else { return nil }
            magnitude = sum
            position += 1
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return Int64(truncatingIfNeeded: 0 &- magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipDigits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
}
