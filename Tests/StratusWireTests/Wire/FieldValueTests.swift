import Foundation
import StratusWire
import Testing

@Suite struct FieldValueTests {
    private func encoded(_ value: FieldValue, numbersAsStrings: Bool = false) throws -> JSONValue {
        try WireCoding.encodeJSON(value, numbersAsStrings: numbersAsStrings)
    }

    private func decode(_ text: String, expecting expected: FieldType? = nil) throws -> FieldValue {
        try FieldValue(json: JSONValue(parsing: text), expecting: expected)
    }

    /// TIMESTAMP, BYTES and DOUBLE — including whole-number doubles — are written with their type tags.
    @Test func ambiguousScalarsAreWrittenWithTypeTags() throws {
        #expect(
            try encoded(.timestamp(Timestamp(millisecondsSince1970: 1_747_999_812_000)))
                == ["type": "TIMESTAMP", "value": 1_747_999_812_000])
        #expect(try encoded(.bytes(Data([1, 2, 3]))) == ["type": "BYTES", "value": "AQID"])
        #expect(try encoded(.double(2.0)) == ["type": "DOUBLE", "value": .double(2.0)])
        #expect(try WireCoding.encode(FieldValue.double(2.0)) == Data(#"{"type":"DOUBLE","value":2.0}"#.utf8))
        #expect(try encoded(.int64(2)) == ["type": "INT64", "value": 2])
        #expect(try encoded(.string("x")) == ["type": "STRING", "value": "x"])
    }

    /// Lists are written with their `*_LIST` tag, assets with `ASSETID`, and an empty list keeps its tag.
    @Test func listsAreWrittenWithListTags() throws {
        #expect(try encoded(.stringList([])) == ["type": "STRING_LIST", "value": []])
        #expect(try encoded(.doubleList([1.0, 2.5])) == ["type": "DOUBLE_LIST", "value": [.double(1.0), .double(2.5)]])
        #expect(try encoded(.timestampList([Timestamp(millisecondsSince1970: 5)])) == ["type": "TIMESTAMP_LIST", "value": [5]])
        #expect(try encoded(.bytesList([Data([0xFF])])) == ["type": "BYTES_LIST", "value": ["/w=="]])
        #expect(try encoded(.assetList([Asset(fileChecksum: "c")]))["type"] == "ASSETID_LIST")
        #expect(try encoded(.asset(Asset(fileChecksum: "c")))["type"] == "ASSETID")
        #expect(try encoded(.emptyList) == ["type": "UNKNOWN_LIST", "value": []])
        for type in FieldType.allCases {
            #expect(FieldType(rawValue: type.rawValue) == type)
        }
    }

    /// An empty list round-trips with its tag.
    @Test func emptyTypedListRoundTrips() throws {
        let value = try decode(#"{"type":"STRING_LIST","value":[]}"#)
        #expect(value == .stringList([]))
        #expect(try encoded(value) == ["type": "STRING_LIST", "value": []])
    }

    /// Untagged values are inferred structurally.
    @Test(arguments: [
        (#"{"value": 42}"#, FieldValue.int64(42)),
        (#"{"value": 1.5}"#, .double(1.5)),
        (#"{"value": 2.0}"#, .double(2.0)),
        (#"{"value": "AQID"}"#, .string("AQID")),
        (#"{"value": true}"#, .int64(1)),
        (#"{"value": false}"#, .int64(0)),
        (#"{"value": {"recordName": "p1"}}"#, .reference(Reference(recordName: "p1"))),
        (#"{"value": {"latitude": 1.5, "longitude": 2}}"#, .location(Location(latitude: 1.5, longitude: 2))),
        (#"{"value": {"fileChecksum": "c", "size": 3}}"#, .asset(Asset(fileChecksum: "c", size: 3))),
        (#"{"value": {"receipt": "r"}}"#, .asset(Asset(receipt: "r"))),
        (#"{"value": ["a", "b"]}"#, .stringList(["a", "b"])),
        (#"{"value": [1, 2]}"#, .int64List([1, 2])),
        (#"{"value": [1, 2.5]}"#, .doubleList([1, 2.5])),
        (#"{"value": [{"recordName": "a"}]}"#, .referenceList([Reference(recordName: "a")])),
        (#"{"value": []}"#, .emptyList),
        (#"{"value": [], "type": "UNKNOWN_LIST"}"#, .emptyList),
        (#"{"value": {"fileChecksum": "c"}, "type": "ASSET"}"#, .asset(Asset(fileChecksum: "c"))),
        (#"{"value": [{"fileChecksum": "c"}], "type": "ASSET_LIST"}"#, .assetList([Asset(fileChecksum: "c")])),
        (#"{"value": 3, "type": "DOUBLE"}"#, .double(3)),
        (#"{"value": 1747999812000, "type": "TIMESTAMP"}"#, .timestamp(Timestamp(millisecondsSince1970: 1_747_999_812_000))),
    ])
    func untaggedAndTaggedValuesDecode(json: String, expected: FieldValue) throws {
        #expect(try decode(json) == expected)
    }

    /// With an expected schema type, untagged values are read as that type.
    @Test func expectedTypeGuidesUntaggedValues() throws {
        #expect(
            try decode(#"{"value": 1747999812000}"#, expecting: .timestamp)
                == .timestamp(Timestamp(millisecondsSince1970: 1_747_999_812_000)))
        #expect(try decode(#"{"value": "AQID"}"#, expecting: .bytes) == .bytes(Data([1, 2, 3])))
        #expect(try decode(#"{"value": 2}"#, expecting: .double) == .double(2))
        #expect(try decode(#"{"value": true}"#, expecting: .int64) == .int64(1))
        #expect(
            try decode(#"{"value": [1, 2]}"#, expecting: .timestampList)
                == .timestampList([Timestamp(millisecondsSince1970: 1), Timestamp(millisecondsSince1970: 2)]))
        #expect(try decode(#"{"value": []}"#, expecting: .referenceList) == .referenceList([]))
        #expect(try decode(#"{"value": [], "type": "UNKNOWN_LIST"}"#, expecting: .stringList) == .stringList([]))
        #expect(
            try decode(#"{"value": {"latitude": 1, "longitude": 2}}"#, expecting: .location)
                == .location(Location(latitude: 1, longitude: 2)))
    }

    /// A string aimed at BYTES must be valid base64.
    @Test func invalidBase64AimedAtBytesThrows() {
        expectWireError(.invalidBase64) { try decode(#"{"value": "not base64!"}"#, expecting: .bytes) }
        expectWireError(.invalidBase64) { try decode(#"{"value": "@@", "type": "BYTES"}"#) }
    }

    /// A tag/value contradiction throws a message naming both types and the path.
    @Test func contradictionNamesPathAndBothTypes() throws {
        let json = try JSONValue(parsing: #"{"value": "tomorrow", "type": "TIMESTAMP"}"#)
        let path: [any CodingKey] = [Key("operations"), Key(3), Key("record"), Key("fields"), Key("due")]
        let error = try #require(throws: WireError.self) { try FieldValue(json: json, codingPath: path) }
        #expect(error.code == .fieldTypeMismatch)
        #expect(error.codingPath == "operations[3].record.fields.due.value")
        #expect(error.message.contains("TIMESTAMP") && error.message.contains("STRING"))
        #expect(error.reason == "the type tag says TIMESTAMP but the value is a string (STRING) at operations[3].record.fields.due.value")
    }

    /// An untagged value that contradicts the expected type throws, naming both types.
    @Test func untaggedValueContradictingSchemaThrows() throws {
        let error = try #require(throws: WireError.self) { try decode(#"{"value": "x"}"#, expecting: .int64) }
        #expect(error.message == "expected INT64 but the value is a string (STRING)")
        let tagged = try #require(throws: WireError.self) { try decode(#"{"value": 5, "type": "INT64"}"#, expecting: .timestamp) }
        #expect(tagged.message == "expected TIMESTAMP but the value is tagged INT64")
        expectWireError(.fieldTypeMismatch) { try decode(#"{"value": 1.5, "type": "INT64"}"#) }
        expectWireError(.fieldTypeMismatch) { try decode(#"{"value": [1, "a"], "type": "INT64_LIST"}"#) }
        expectWireError(.fieldTypeMismatch) { try decode(#"{"value": ["a"], "type": "UNKNOWN_LIST"}"#) }
        expectWireError(.unknownFieldType) { try decode(#"{"value": 1, "type": "LIST"}"#) }
        expectWireError(.ambiguousFieldValue) { try decode(#"{"value": [1, "a"]}"#) }
        expectWireError(.ambiguousFieldValue) { try decode(#"{"value": {"color": "red"}}"#) }
        expectWireError(.missingKey) { try decode(#"{"type": "STRING"}"#) }
    }

    /// A fractional TIMESTAMP is rejected, also inside a Location.
    @Test func fractionalTimestampThrows() throws {
        let error = try #require(throws: WireError.self) { try decode(#"{"value": 1747999812000.5, "type": "TIMESTAMP"}"#) }
        #expect(error.code == .fractionalTimestamp)
        #expect(error.message.contains("whole number of milliseconds"))
        expectWireError(.fractionalTimestamp) {
            try decode(#"{"value": {"latitude": 1, "longitude": 2, "timestamp": 0.5}, "type": "LOCATION"}"#)
        }
        #expect(try decode(#"{"value": 1.0e12, "type": "TIMESTAMP"}"#) == .timestamp(Timestamp(millisecondsSince1970: 1_000_000_000_000)))
    }

    /// Int64 values beyond 2^53 round-trip exactly, down to Int64.max and Int64.min.
    @Test func int64ExtremesRoundTripExactly() throws {
        for value in [Int64.max, Int64.min, 9_007_199_254_740_993] {
            let data = try WireCoding.encode(FieldValue.int64(value))
            #expect(String(decoding: data, as: UTF8.self) == #"{"type":"INT64","value":\#(value)}"#)
            #expect(try WireCoding.decode(FieldValue.self, from: data) == .int64(value))
        }
    }

    /// numbersAsStrings writes INT64, DOUBLE and TIMESTAMP values (and their lists) as strings, nothing else.
    @Test func numbersAsStringsWritesNumberFieldsAsStrings() throws {
        var record = Record(recordName: "n", recordType: "T")
        record["i"] = .int64(.max)
        record["d"] = .double(2.0)
        record["t"] = .timestamp(Timestamp(millisecondsSince1970: 7))
        record["il"] = .int64List([1, 2])
        record["dl"] = .doubleList([0.5])
        record["tl"] = .timestampList([Timestamp(millisecondsSince1970: 8)])
        record["l"] = .location(Location(latitude: 1.5, longitude: 2.5))
        record["s"] = .string("12")
        record.created = RecordTimestamp(timestamp: Timestamp(millisecondsSince1970: 9))
        let json = try WireCoding.encodeJSON(record, numbersAsStrings: true)
        let fields = try #require(json["fields"])
        #expect(fields["i"] == ["type": "INT64", "value": "9223372036854775807"])
        #expect(fields["d"] == ["type": "DOUBLE", "value": "2.0"])
        #expect(fields["t"] == ["type": "TIMESTAMP", "value": "7"])
        #expect(fields["il"]?["value"] == ["1", "2"])
        #expect(fields["dl"]?["value"] == ["0.5"])
        #expect(fields["tl"]?["value"] == ["8"])
        #expect(fields["l"]?["value"]?["latitude"] == .double(1.5))
        #expect(fields["s"]?["value"] == "12")
        #expect(json["created"]?["timestamp"] == 9)
        // Foundation's encoder honours the same flag.
        let foundation = try WireCoding.encoder(numbersAsStrings: true).encode(FieldValue.int64(5))
        #expect(String(decoding: foundation, as: UTF8.self) == #"{"type":"INT64","value":"5"}"#)
    }

    /// Numbers sent as strings decode when the tag says INT64, DOUBLE or TIMESTAMP, but not untagged.
    @Test func numericStringsDecodeOnlyWhenTagged() throws {
        #expect(try decode(#"{"value": "9223372036854775807", "type": "INT64"}"#) == .int64(.max))
        #expect(try decode(#"{"value": "2.5", "type": "DOUBLE"}"#) == .double(2.5))
        #expect(
            try decode(#"{"value": "1747999812000", "type": "TIMESTAMP"}"#)
                == .timestamp(Timestamp(millisecondsSince1970: 1_747_999_812_000)))
        #expect(try decode(#"{"value": ["1", "2"], "type": "INT64_LIST"}"#) == .int64List([1, 2]))
        #expect(try decode(#"{"value": "42"}"#) == .string("42"))
        expectWireError(.fieldTypeMismatch) { try decode(#"{"value": "42"}"#, expecting: .int64) }
        expectWireError(.fractionalTimestamp) { try decode(#"{"value": "1.5", "type": "TIMESTAMP"}"#) }
        let encoded = try WireCoding.encode(FieldValue.int64List([3, 4]), numbersAsStrings: true)
        #expect(try WireCoding.decode(FieldValue.self, from: encoded) == .int64List([3, 4]))
    }

    /// A record decoded with a schema lookup reads untagged epoch-ms as TIMESTAMP and base64 as BYTES.
    @Test func recordDecodingUsesFieldTypeLookup() throws {
        let lookup = FieldTypeLookup { recordType, field in
            guard recordType == "Task" else { return nil }
            return ["due": .timestamp, "blob": .bytes][field]
        }
        let body = #"{"recordType":"Task","fields":{"due":{"value":1747999812000},"blob":{"value":"AQID"},"n":{"value":3}}}"#
        let record = try WireCoding.decode(Record.self, from: Data(body.utf8), fieldTypes: lookup)
        #expect(record["due"] == .timestamp(Timestamp(millisecondsSince1970: 1_747_999_812_000)))
        #expect(record["blob"] == .bytes(Data([1, 2, 3])))
        #expect(record["n"] == .int64(3))
        let withFoundation = try WireCoding.decoder(fieldTypes: lookup).decode(Record.self, from: Data(body.utf8))
        #expect(withFoundation == record)
    }

    /// Timestamps convert to and from dates at whole milliseconds.
    @Test func timestampsRoundDatesToWholeMilliseconds() {
        let date = Date(timeIntervalSince1970: 1_747_999_812.0004)
        #expect(Timestamp(date).millisecondsSince1970 == 1_747_999_812_000)
        #expect(FieldValue.date(date) == .timestamp(Timestamp(millisecondsSince1970: 1_747_999_812_000)))
        #expect(Timestamp(millisecondsSince1970: 1500).date == Date(timeIntervalSince1970: 1.5))
        #expect(FieldValue.bool(true) == .int64(1))
    }
}

/// A coding key for building error paths in tests.
struct Key: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    init(_ index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    init?(stringValue: String) { self.init(stringValue) }
    init?(intValue: Int) { self.init(intValue) }
}
