import Foundation
import StratusWire
import Testing

@Suite struct JSONValueTests {
    /// Parsing keeps integers and doubles apart, and integers exact.
    @Test func parsingKeepsIntegersAndDoublesApart() throws {
        let json = try JSONValue(parsing: #"{"a": 2, "b": 2.0, "c": 9223372036854775807, "d": 1e3, "e": -0, "f": 9223372036854775808}"#)
        #expect(json["a"] == .integer(2))
        #expect(json["b"] == .double(2.0))
        #expect(json["c"] == .integer(.max))
        #expect(json["d"] == .double(1000))
        #expect(json["e"] == .integer(0))
        #expect(json["f"] == .double(9_223_372_036_854_775_808))
    }

    /// Serialization is canonical: sorted keys, unescaped slashes, doubles with a fraction.
    @Test func serializationIsCanonical() throws {
        let json: JSONValue = ["z": [1, 2.0, "a/b", true, .null], "a": ["nested": "\u{1}\"\\\n"]]
        #expect(try json.serializedString() == #"{"a":{"nested":"\u0001\"\\\n"},"z":[1,2.0,"a/b",true,null]}"#)
        #expect(try JSONValue(parsing: json.serialized()) == json)
        #expect(try JSONValue(parsing: json.serialized(prettyPrinted: true)) == json)
    }

    /// Strings decode escapes, including surrogate pairs, and keep non-ASCII text.
    @Test func stringsDecodeEscapes() throws {
        #expect(try JSONValue(parsing: #""\u00e9\ud83d\ude00\/\t""#) == .string("é😀/\t"))
        #expect(try JSONValue(parsing: Data("\"é\"".utf8)) == .string("é"))
    }

    /// Malformed JSON is rejected with the byte offset.
    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "tru", "\"\\ud800\"", "{} x", "\"\u{1}\"", "NaN"])
    func malformedJSONIsRejected(text: String) {
        let error = expectWireError(.invalidJSON) { try JSONValue(parsing: text) }
        #expect(error?.message.contains("at byte") == true)
    }

    /// Deeply nested input is rejected instead of overflowing the stack.
    @Test func deepNestingIsRejected() {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        expectWireError(.invalidJSON) { try JSONValue(parsing: text) }
    }

    /// NaN cannot be written as JSON.
    @Test func nanCannotBeSerialized() {
        expectWireError(.invalidValue) { try JSONValue.double(.nan).serialized() }
    }

    /// JSONValue is Codable through both WireCoding and Foundation.
    @Test func jsonValueIsCodable() throws {
        let json: JSONValue = ["a": [1, 1.5, "x", false, .null], "b": [:]]
        #expect(try WireCoding.decode(JSONValue.self, from: WireCoding.encode(json)) == json)
        let foundation = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(json))
        #expect(foundation == json)
    }
}
