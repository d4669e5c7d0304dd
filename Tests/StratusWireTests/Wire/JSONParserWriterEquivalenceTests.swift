import Foundation
import StratusWire
import Testing

/// The byte-level parser and writer agree with the previous implementations (kept in
/// `Support/ReferenceJSON.swift`) on random documents and on randomly corrupted bytes.
@Suite struct JSONParserWriterEquivalenceTests {
    static let seeds: [UInt64] = Array(1...6)

    /// Random trees serialize to the reference bytes, compact and pretty.
    @Test(arguments: seeds)
    func writerMatchesReference(seed: UInt64) throws {
        var random = RandomWire(seed: seed)
        for _ in 0..<300 {
            let json = Self.tree(&random, depth: 0)
            for pretty in [false, true] {
                var reference = ReferenceJSONWriter(prettyPrinted: pretty)
                try reference.write(json, depth: 0)
                let bytes = [UInt8](try json.serialized(prettyPrinted: pretty))
                #expect(bytes == reference.output, "\(String(decoding: reference.output, as: UTF8.self))")
            }
        }
    }

    /// Random documents, and the same documents with corrupted bytes, parse to the same value or fail
    /// with the same message (including the byte offset).
    @Test(arguments: seeds)
    func parserMatchesReference(seed: UInt64) throws {
        var random = RandomWire(seed: seed &+ 50)
        for _ in 0..<300 {
            let json = Self.tree(&random, depth: 0)
            let text = [UInt8](try json.serialized(prettyPrinted: random.chance(30)))
            expectSameParse(text)
            var corrupted = text
            for _ in 0...random.count(3) { Self.corrupt(&corrupted, random: &random) }
            expectSameParse(corrupted)
        }
    }

    /// Hand-picked edge cases: number limits, escapes, duplicate keys, bad UTF-8, truncation.
    @Test(arguments: [
        "0", "-0", "-0.0", "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "18446744073709551616", "123456789012345678901234567890", "1e400", "-1e400", "1E+2", "0.000001", "00", "-", "-a",
        #"{"a":1,"a":2}"#, #"{"a":{"b":1},"a":[1]}"#, #"{"a":1,}"#, #"["\u0000","\uD83D\uDE00","\/","\ud800x"]"#, "\"\\u12\"",
        "\"abc", "\"a\\\"", "[1 2]", "{\"a\":}", " \t\r\n[ ] ", "\u{FEFF}{}", "\"\u{7F}\"", "[[[[[]]]]]", "{\"\":\"\"}",
    ])
    func edgeCasesMatchReference(text: String) {
        expectSameParse(Array(text.utf8))
    }

    @Test func invalidUTF8MatchesReference() {
        for bytes: [UInt8] in [
            [0x22, 0xC3, 0x22], [0x22, 0xFF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xC3, 0xA9, 0x5C, 0x6E, 0xFE, 0x22], [0xEF, 0xBB, 0xBF, 0x31],
            [0xEF, 0xBB],
        ] {
            expectSameParse(bytes)
        }
    }

    private func expectSameParse(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        var parser = ReferenceJSONParser(bytes: bytes)
        let reference = Result { () throws(WireError) in try parser.parseDocument() }
        let actual = Result { () throws(WireError) in try JSONValue(parsing: Data(bytes)) }
        switch (reference, actual) {
        case (.success(let expected), .success(let value)):
            #expect(expected == value, sourceLocation: sourceLocation)
            // NB: `==` cannot tell -0.0 from 0.0; the serialized bytes can.
            #expect(Self.text(expected) == Self.text(value), sourceLocation: sourceLocation)
        case (.failure(let expected), .failure(let error)):
            #expect(expected.reason == error.reason, sourceLocation: sourceLocation)
        default:
            Issue.record("reference \(reference) but got \(actual) for \(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
        }
    }

    /// The serialized text of a parsed (hence finite) value, or the error's reason.
    static func text(_ json: JSONValue) -> String {
        do {
            return String(decoding: try json.serialized(), as: UTF8.self)
        } catch {
            return error.reason
        }
    }

    static func tree(_ random: inout RandomWire, depth: Int) -> JSONValue {
        switch Int.random(in: 0..<(depth > 3 ? 6 : 9), using: &random.rng) {
        case 0: return .null
        case 1: return .bool(random.chance(50))
        case 2: return .integer(random.int64())
        case 3: return .double(random.double())
        case 4, 5: return .string(random.string())
        case 6: return .array((0..<random.count(4)).map { _ in tree(&random, depth: depth + 1) })
        default:
            var members: [String: JSONValue] = [:]
            for _ in 0..<random.count(5) { members[random.key()] = tree(&random, depth: depth + 1) }
            return .object(members)
        }
    }

    static func corrupt(_ bytes: inout [UInt8], random: inout RandomWire) {
        let replacements: [UInt8] = [
            0x22, 0x5C, 0x2C, 0x3A, 0x7B, 0x7D, 0x5B, 0x5D, 0x30, 0x31, 0x2D, 0x2E, 0x65, 0x20, 0x0A, 0x00, 0x75, 0xC3, 0xA9, 0xFF, 0xED, 0x80,
        ]
        let position = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &random.rng)
        switch Int.random(in: 0..<3, using: &random.rng) {
        case 0 where !bytes.isEmpty: bytes[position] = random.pick(replacements)
        case 1 where !bytes.isEmpty: bytes.remove(at: position)
        default: bytes.insert(random.pick(replacements), at: position)
        }
    }
}
