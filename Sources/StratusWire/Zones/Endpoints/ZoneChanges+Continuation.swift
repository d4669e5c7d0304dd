public import Foundation

extension ZoneChanges.Response {
    /// Where a one-zone `changes/zone` response ends, read from its body without decoding its records:
    /// what a client needs to ask for the next page while it decodes this one.
    public struct Continuation: Hashable, Sendable {
        /// The zone's `syncToken`.
        public var syncToken: SyncToken
        /// The zone's `moreComing`.
        public var moreComing: Bool
        /// How many entries the zone's `records` array holds.
        public var recordCount: Int
    }

    /// Skims a response body for its one zone's token, `moreComing` and number of records.
    ///
    /// It reads only the structure of the JSON (no values but the token), so it costs a fraction of
    /// ``WireCoding/decode(_:from:fieldTypes:)``. It is a hint: the decoded response is the truth, and
    /// a caller that acted on the hint compares it with the decoded page. `nil` when the body is not
    /// plainly one zone's changes (a zone error, several zones, a key it would have to unescape,
    /// malformed JSON): decode it then.
    ///
    /// ```swift
    /// import Foundation
    /// import StratusWire
    ///
    /// let body = Data(#"{"zones":[{"moreComing":true,"records":[{},{}],"syncToken":"AB","zoneID":{"zoneName":"Z"}}]}"#.utf8)
    /// if let next = ZoneChanges.Response.continuation(in: body), next.moreComing {
    ///     print("ask for the page after", next.syncToken.rawValue, "while decoding", next.recordCount, "records")
    /// }
    /// ```
    ///
    /// - Parameter body: The response body.
    /// - Returns: The continuation, or `nil` when the body must be decoded to know it.
    public static func continuation(in body: Data) -> Continuation? {
        body.withUnsafeBytes { buffer in
            var skimmer = JSONSkimmer(buffer.bindMemory(to: UInt8.self))
            return skimmer.zoneContinuation()
        }
    }
}

/// Walks JSON text by its structure, without building values; every method returns `nil` (or
/// `false`) on anything it does not expect, and its caller gives up.
private struct JSONSkimmer {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// `{"zones":[{…}]}` with exactly one zone, read for its continuation.
    mutating func zoneContinuation() -> ZoneChanges.Response.Continuation? {
        var found: ZoneChanges.Response.Continuation?
        let complete = members { skimmer, key in
            guard key == "zones" else { return skimmer.skipValue(depth: 1) }
            guard skimmer.take(UInt8(ascii: "[")), let zone = skimmer.zone(), skimmer.take(UInt8(ascii: "]")) else { return false }
            found = zone
            return true
        }
        skipWhitespace()
        guard complete, index == bytes.count else { return nil }
        return found
    }

    /// One zone's dictionary: its token, `moreComing` and record count, or `nil` for a zone error.
    private mutating func zone() -> ZoneChanges.Response.Continuation? {
        var token: SyncToken?
        var moreComing: Bool?
        var count: Int?
        let complete = members { skimmer, key in
            switch key {
            case "syncToken":
                token = skimmer.string().map(SyncToken.init(rawValue:))
                return token != nil
            case "moreComing":
                moreComing = skimmer.bool()
                return moreComing != nil
            case "records":
                count = skimmer.arrayCount()
                return count != nil
            case "serverErrorCode": return false
            default: return skimmer.skipValue(depth: 2)
            }
        }
        guard complete, let token, let moreComing, let count else { return nil }
        return ZoneChanges.Response.Continuation(syncToken: token, moreComing: moreComing, recordCount: count)
    }

    /// Reads an object, handing each member's key to `member` with the index at its value.
    private mutating func members(_ member: (inout JSONSkimmer, Substring) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        while true {
            guard let key = plainKey(), take(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            guard member(&self, key) else { return false }
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "}"))
        }
    }

    /// A key without escapes (an escaped key could spell one the skimmer looks for: give up).
    private mutating func plainKey() -> Substring? {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let end = stringEnd(), !hasEscape(index + 1, end) else { return nil }
        let key = String(decoding: UnsafeBufferPointer(rebasing: bytes[index + 1..<end]), as: UTF8.self)
        index = end + 1
        return Substring(key)
    }

    private mutating func string() -> String? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let end = stringEnd() else { return nil }
        // NB: the token is decoded by the real parser, escapes and UTF-8 checks included.
        var parser = JSONParser(bytes: Array(UnsafeBufferPointer(rebasing: bytes[index...end])))
        index = end + 1
        guard case .string(let string) = try? parser.parseDocument() else { return nil }
        return string
    }

    private mutating func bool() -> Bool? {
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    private mutating func arrayCount() -> Int? {
        guard take(UInt8(ascii: "[")) else { return nil }
        if take(UInt8(ascii: "]")) { return 0 }
        var count = 0
        while true {
            skipWhitespace()
            guard skipValue(depth: 3) else { return nil }
            count += 1
            if take(UInt8(ascii: ",")) { continue }
            return take(UInt8(ascii: "]")) ? count : nil
        }
    }

    /// Skips one value of any kind (its strings and nesting checked, its scalars only delimited).
    private mutating func skipValue(depth: Int) -> Bool {
        guard depth <= JSONParser.maximumDepth, index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            guard let end = stringEnd() else { return false }
            index = end + 1
            return true
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return skipContainer(depth: depth)
        default:
            let start = index
            while index < bytes.count, !Self.isDelimiter(bytes[index]) { index += 1 }
            return index > start
        }
    }

    private mutating func skipContainer(depth: Int) -> Bool {
        let close = bytes[index] == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
        index += 1
        if take(close) { return true }
        while true {
            skipWhitespace()
            if close == UInt8(ascii: "}") {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let end = stringEnd() else { return false }
                index = end + 1
                guard take(UInt8(ascii: ":")) else { return false }
                skipWhitespace()
            }
            guard skipValue(depth: depth + 1) else { return false }
            if take(UInt8(ascii: ",")) { continue }
            return take(close)
        }
    }

    /// The index of the quote closing the string that starts at `index`.
    private func stringEnd() -> Int? {
        var position = index + 1
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "\""): return position
            case UInt8(ascii: "\\"): position += 2
            default: position += 1
            }
        }
        return nil
    }

    private func hasEscape(_ start: Int, _ end: Int) -> Bool {
        bytes[start..<end].contains(UInt8(ascii: "\\"))
    }

    private mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
        index += count
        return true
    }

    /// Skips whitespace, then consumes `byte` if it is next.
    private mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        isWhitespace(byte) || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
    }
}
