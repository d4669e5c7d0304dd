import Foundation

extension Data {
    /// Decodes hex test vectors; crashes on malformed input (test code only).
    init(hex: String) {
        let digits = Array(hex.utf8)
        precondition(digits.count % 2 == 0, "odd-length hex")
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            bytes.append(UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16)!)
        }
        self.init(bytes)
    }

    /// Lowercase hex, for comparing with test vectors.
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
