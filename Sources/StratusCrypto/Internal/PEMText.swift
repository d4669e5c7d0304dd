import Foundation

/// PEM text (RFC 7468): `-----BEGIN <label>-----`, base64 of DER bytes, `-----END <label>-----`.
///
/// Pure Swift, built on every platform: the CryptoKit side of the P-256 keys reads and writes its
/// PEM with it, and the Linux tests check it against what OpenSSL writes.
enum PEMText {
    /// The DER bytes of the first block with one of `labels`, with the label it had.
    ///
    /// Text around the block (an `EC PARAMETERS` block, blank lines, comments) is ignored.
    ///
    /// - Returns: `nil` when there is no such block or its body is not base64.
    static func firstBlock(in text: String, labels: [String]) -> (label: String, der: Data)? {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        var index = 0
        while index < lines.count {
            let line = lines[index]
            index += 1
            guard line.hasPrefix("-----BEGIN "), line.hasSuffix("-----") else { continue }
            let label = String(line.dropFirst("-----BEGIN ".count).dropLast("-----".count))
            guard labels.contains(label) else { continue }
            var body = ""
            while index < lines.count, lines[index] != "-----END \(label)-----" {
                body += lines[index]
                index += 1
            }
            guard index < lines.count, let der = Data(base64Encoded: body), !der.isEmpty else { return nil }
            return (label, der)
        }
        return nil
    }

    /// A block in the layout OpenSSL writes: 64 base64 characters a line, a final newline.
    static func block(label: String, der: Data) -> String {
        let base64 = der.base64EncodedString()
        var text = "-----BEGIN \(label)-----\n"
        var start = base64.startIndex
        while start < base64.endIndex {
            let end = base64.index(start, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
            text += base64[start..<end] + "\n"
            start = end
        }
        return text + "-----END \(label)-----\n"
    }
}
