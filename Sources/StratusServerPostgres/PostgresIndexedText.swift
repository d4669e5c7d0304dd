/// How `field_index` holds a string: whole up to ``maximumBytes`` of UTF-8, else its longest prefix
/// within that many bytes that ends on a character boundary.
///
/// PostgreSQL refuses a B-tree entry over ~2,700 bytes, so a record with a longer indexed string
/// could not be written at all. The index only narrows a query's candidates (each is then checked
/// exactly against the record), so a prefix is enough as long as every test on it keeps every
/// record the exact test would keep (``comparison(_:_:)``). Sorting by such a string orders values that
/// agree on their first ``maximumBytes`` bytes by record name (Documentation/0008).
enum PostgresIndexedText {
    /// The most UTF-8 bytes of a string an index row holds.
    static let maximumBytes = 1_024

    /// `text` as an index row holds it (600 "é" are stored as 512, 1,024 bytes), or, with a smaller
    /// `maximumBytes`, a shorter prefix of it.
    static func prefix(_ text: String, maximumBytes: Int = maximumBytes) -> String {
        let utf8 = text.utf8
        guard utf8.count > maximumBytes else { return text }
        var end = utf8.index(utf8.startIndex, offsetBy: maximumBytes)
        // NB: back to the start of a scalar: continuation bytes are 10xxxxxx.
        while end > utf8.startIndex, utf8[end] & 0xC0 == 0x80 { end = utf8.index(before: end) }
        return String(decoding: utf8[..<end], as: UTF8.self)
    }

    /// The SQL operator and operand that test a stored prefix so that every row whose whole string
    /// passes `symbol` (`=`, `<`, `<=`, `>`, `>=`) with `value` is kept.
    ///
    /// A stored prefix `p` of a string `s` has `p ≤ s`, so `s < v` gives `p < v` (the operand stays
    /// whole). `s = v` gives equal prefixes. `s > v` gives `p ≥ prefix(v)` when that prefix is at
    /// least three bytes shorter than what is stored (a stored prefix loses at most three bytes to its
    /// character boundary), and a string that begins with `v` has a stored prefix that begins with
    /// `prefix(v)` by the same measure.
    static func comparison(_ symbol: String, _ value: String) -> (symbol: String, operand: String) {
        switch symbol {
        case "=": return ("=", prefix(value))
        case ">", ">=":
            let shorter = beginning(value)
            return shorter == value ? (symbol, value) : (">=", shorter)
        default: return (symbol, value)
        }
    }

    /// The part of `value` every stored prefix of a string beginning with `value` begins with.
    static func beginning(_ value: String) -> String {
        prefix(value, maximumBytes: maximumBytes - 3)
    }
}
