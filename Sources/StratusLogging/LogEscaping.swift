/// How text from anywhere (an e-mail address typed into a form, a record name, a header)
/// is written into a log line without being able to forge one.
///
/// Every character that could end a line or hide text — C0 and C1 controls, DEL, the Unicode
/// line and paragraph separators, and the bidirectional overrides — is written as an escape
/// (`\n`, `\r`, `\t`, else `\u{…}` in text, `\uXXXX` in JSON), and the backslash itself is
/// doubled, so an escape in the output always means an escape was needed. A value with a
/// space, a quote or `=` is quoted in text lines, so it cannot pass for another `key=value`.
enum LogEscaping {
    /// Whether `scalar` must never appear raw in a log line.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true  // C0, DEL, C1 (NEL among them)
        case 0x2028, 0x2029: true  // line and paragraph separators
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidirectional marks and overrides
        default: false
        }
    }

    /// `text` for a text log line: escapes as described above; `quoted` also escapes `"`.
    static func text(_ text: String, quoted: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0) || $0 == "\\" || (quoted && $0 == "\"") }) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result.append(contentsOf: #"\\"#.unicodeScalars)
            case "\"" where quoted: result.append(contentsOf: #"\""#.unicodeScalars)
            case "\n": result.append(contentsOf: #"\n"#.unicodeScalars)
            case "\r": result.append(contentsOf: #"\r"#.unicodeScalars)
            case "\t": result.append(contentsOf: #"\t"#.unicodeScalars)
            case _ where needsEscape(scalar):
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    /// A metadata key or value for a text line: escaped, and in quotes if it is empty or has a
    /// space, a quote or `=` (which would let it pass for more than one `key=value`).
    static func field(_ value: String) -> String {
        let mustQuote = value.isEmpty || value.unicodeScalars.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0.properties.isWhitespace }
        return mustQuote ? "\"" + text(value, quoted: true) + "\"" : text(value)
    }

    /// `text` as a JSON string literal, quotes included, with every character of
    /// ``needsEscape(_:)`` as `\uXXXX` (JSON parsers give back the original text).
    static func json(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        result.append("\"")
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result.append(contentsOf: #"\""#.unicodeScalars)
            case "\\": result.append(contentsOf: #"\\"#.unicodeScalars)
            case "\n": result.append(contentsOf: #"\n"#.unicodeScalars)
            case "\r": result.append(contentsOf: #"\r"#.unicodeScalars)
            case "\t": result.append(contentsOf: #"\t"#.unicodeScalars)
            case _ where needsEscape(scalar):
                let hex = String(scalar.value, radix: 16)
                result.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            default: result.append(scalar)
            }
        }
        result.append("\"")
        return String(result)
    }
}
