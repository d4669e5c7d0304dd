import Foundation
import Testing

@testable import StratusWire

/// The direct (Codable-free) writer and reader must agree with the `Codable` reference path byte
/// for byte and error for error, on random values, untagged and mutated inputs, and the fixtures.
@Suite struct DirectCodingEquivalenceTests {
    static let seeds: [UInt64] = Array(1...8)

    // MARK: Encoding

    /// Random response bodies encode to exactly the reference bytes, with and without numbersAsStrings.
    @Test(arguments: seeds)
    func directWriterMatchesReferenceBytes(seed: UInt64) throws {
        var random = RandomWire(seed: seed)
        for _ in 0..<60 {
            let records = random.list { $0.result() } + random.list { $0.result() }
            let token = SyncToken(random.string())
            try expectSameBytes(RecordsModify.Response(records: records))
            try expectSameBytes(RecordsLookup.Response(records: records))
            try expectSameBytes(RecordsQuery.Response(records: records, continuationMarker: random.maybe { ContinuationMarker($0.string()) }))
            try expectSameBytes(
                RecordsChanges.Response(records: records, syncToken: token, moreComing: random.chance(50), reverse: random.maybe { $0.chance(50) }))
            let zones: [ZoneChanges.ZoneResult] = [
                .changes(ZoneChanges.ZoneRecords(zoneID: random.zoneID(), records: records, syncToken: token, moreComing: random.chance(50))),
                .error(ZoneRecordFetchError(zoneID: random.maybe { $0.zoneID() }, serverErrorCode: .zoneNotFound, reason: random.string())),
            ]
            try expectSameBytes(ZoneChanges.Response(zones: random.chance(50) ? zones : zones.reversed()))
            try expectSameBytes(random.modifyRequest())
            try expectSameBytes(random.record())
            try expectSameBytes(random.fieldValue())
            try expectSameBytes(random.fields())
        }
    }

    /// Non-finite doubles fail the same way (and `numbersAsStrings` writes them as strings, as the reference does).
    @Test func nonFiniteDoublesFailLikeTheReference() throws {
        for bad in [Double.nan, .infinity, -.infinity] {
            try expectSameBytes(FieldValue.double(bad))
            try expectSameBytes(FieldValue.doubleList([1, bad]))
            try expectSameBytes(FieldValue.location(Location(latitude: 1, longitude: bad)))
            let record = Record(recordName: "r", fields: ["a": .double(-.infinity), "b": .double(bad)])
            try expectSameBytes(RecordsModify.Response(records: [.record(record)]))
            for numbersAsStrings in [false, true] {
                let reference = Result { () throws(WireError) in try WireCoding.encodeReference(record, numbersAsStrings: numbersAsStrings) }
                let public_ = Result { () throws(WireError) in try WireCoding.encode(record, numbersAsStrings: numbersAsStrings) }
                expectSame(reference, public_)
            }
        }
    }

    /// Every records fixture re-encodes to the reference bytes.
    @Test func fixturesEncodeToTheReferenceBytes() throws {
        try expectSameBytes(WireCoding.decode(RecordsModify.Request.self, from: Fixture.data("RecordsModifyRequest")))
        try expectSameBytes(WireCoding.decode(RecordsModify.Response.self, from: Fixture.data("RecordsModifyResponse")))
        try expectSameBytes(WireCoding.decode(Record.self, from: Fixture.data("RecordAllFieldTypes")))
        try expectSameBytes(WireCoding.decode(Record.self, from: Fixture.data("ShareRecord")))
        try expectSameBytes(WireCoding.decode(RecordsLookup.Response.self, from: Fixture.data("RecordsLookupResponse")))
        try expectSameBytes(WireCoding.decode(RecordsQuery.Response.self, from: Fixture.data("RecordsQueryResponse")))
        try expectSameBytes(WireCoding.decode(RecordsChanges.Response.self, from: Fixture.data("RecordsChangesResponse")))
        try expectSameBytes(WireCoding.decode(ZoneChanges.Response.self, from: Fixture.data("ZoneChangesResponse")))
    }

    // MARK: Decoding

    /// Random requests and responses decode to the reference values, tagged and as numeric strings.
    @Test(arguments: seeds)
    func directReaderMatchesReferenceValues(seed: UInt64) throws {
        var random = RandomWire(seed: seed)
        for _ in 0..<40 {
            let request = random.modifyRequest()
            let response = RecordsChanges.Response(records: random.list { $0.result() }, syncToken: "t", moreComing: random.chance(50))
            for numbersAsStrings in [false, true] {
                let requestJSON = try JSONValue(parsing: WireCoding.encode(request, numbersAsStrings: numbersAsStrings))
                expectSameDecoding(RecordsModify.Request.self, requestJSON)
                expectSameDecoding(RecordsModify.Request.self, requestJSON, fieldTypes: Self.schema(of: request))
                expectSameDecoding(RecordsModify.Request.self, requestJSON, fieldTypes: Self.scrambledSchema)
                let responseJSON = try JSONValue(parsing: WireCoding.encode(response, numbersAsStrings: numbersAsStrings))
                expectSameDecoding(RecordsChanges.Response.self, responseJSON)
                expectSameDecoding(RecordsModify.Response.self, responseJSON)
                expectSameDecoding(RecordsQuery.Response.self, responseJSON)
                let zones = try JSONValue(parsing: WireCoding.encode(random.zoneChangesResponse(), numbersAsStrings: numbersAsStrings))
                expectSameDecoding(ZoneChanges.Response.self, zones)
            }
        }
    }

    /// Untagged field values (third-party clients) are inferred the same way, with and without a schema.
    @Test(arguments: seeds)
    func untaggedFieldsDecodeLikeTheReference(seed: UInt64) throws {
        var random = RandomWire(seed: seed &+ 100)
        for _ in 0..<40 {
            let request = random.modifyRequest()
            let json = Self.removingTypeTags(try JSONValue(parsing: WireCoding.encode(request)), random: &random)
            expectSameDecoding(RecordsModify.Request.self, json)
            expectSameDecoding(RecordsModify.Request.self, json, fieldTypes: Self.schema(of: request))
            expectSameDecoding(RecordsModify.Request.self, json, fieldTypes: Self.scrambledSchema)
        }
    }

    /// Mutated bodies (a random node replaced by a random value) fail or succeed like the reference,
    /// and the public decoder reports the reference's error, message and path.
    @Test(arguments: seeds)
    func mutatedInputsFailLikeTheReference(seed: UInt64) throws {
        var random = RandomWire(seed: seed &+ 200)
        for _ in 0..<150 {
            let request = RecordsModify.Request(operations: [random.operation()], zoneID: random.maybe { $0.zoneID() })
            var json = try JSONValue(parsing: WireCoding.encode(request))
            if random.chance(50) { json = Self.removingTypeTags(json, random: &random) }
            for _ in 0...random.count(2) { json = Self.mutating(json, random: &random) }
            expectSameDecoding(RecordsModify.Request.self, json)
            expectSameDecoding(RecordsModify.Request.self, json, fieldTypes: Self.scrambledSchema)
            let response = Self.mutating(
                try JSONValue(parsing: WireCoding.encode(RecordsChanges.Response(records: [random.result()], syncToken: "t", moreComing: false))),
                random: &random)
            expectSameDecoding(RecordsChanges.Response.self, response)
            let zones = Self.mutating(try JSONValue(parsing: WireCoding.encode(random.zoneChangesResponse())), random: &random)
            expectSameDecoding(ZoneChanges.Response.self, zones)
        }
    }

    /// Every records fixture decodes to the reference value.
    @Test func fixturesDecodeToTheReferenceValues() throws {
        expectSameDecoding(RecordsModify.Request.self, try Fixture.json("RecordsModifyRequest"))
        expectSameDecoding(RecordsModify.Response.self, try Fixture.json("RecordsModifyResponse"))
        expectSameDecoding(Record.self, try Fixture.json("RecordAllFieldTypes"))
        expectSameDecoding(Record.self, try Fixture.json("ShareRecord"))
        expectSameDecoding(RecordsLookup.Response.self, try Fixture.json("RecordsLookupResponse"))
        expectSameDecoding(RecordsQuery.Response.self, try Fixture.json("RecordsQueryResponse"))
        expectSameDecoding(RecordsChanges.Response.self, try Fixture.json("RecordsChangesResponse"))
        expectSameDecoding(ZoneChanges.Response.self, try Fixture.json("ZoneChangesResponse"))
    }

    // MARK: Helpers

    private func expectSameBytes<T: JSONDirectEncodable>(
        _ value: T, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for numbersAsStrings in [false, true] {
            let reference = Result { () throws(WireError) in [UInt8](try WireCoding.encodeReference(value, numbersAsStrings: numbersAsStrings)) }
            let direct = Result { () throws(WireError) in try WireCoding.encodeDirect(value, numbersAsStrings: numbersAsStrings) }
            expectSame(reference, direct, sourceLocation: sourceLocation)
        }
    }

    private func expectSame<T: Equatable>(
        _ reference: Result<T, WireError>, _ other: Result<T, WireError>, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        switch (reference, other) {
        case (.success(let expected), .success(let actual)):
            if expected != actual {
                Issue.record("expected\n\(Self.text(expected))\nbut got\n\(Self.text(actual))", sourceLocation: sourceLocation)
            }
        case (.failure(let expected), .failure(let actual)):
            #expect(expected.code == actual.code, sourceLocation: sourceLocation)
            #expect(expected.reason == actual.reason, sourceLocation: sourceLocation)
        default:
            Issue.record("reference \(reference) but got \(other)", sourceLocation: sourceLocation)
        }
    }

    /// Bytes as text for failure messages (the comparison itself is on bytes).
    private static func text<T>(_ value: T) -> String {
        if let bytes = value as? [UInt8] { return String(decoding: bytes, as: UTF8.self) }
        return "\(value)"
    }

    private func expectSameDecoding<T: JSONDirectDecodable & Equatable & Encodable>(
        _ type: T.Type, _ json: JSONValue, fieldTypes: FieldTypeLookup? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let reference = Result { () throws(WireError) in try WireCoding.decodeReference(type, from: json, fieldTypes: fieldTypes) }
        let direct = Result { () throws(WireError) in try WireCoding.decodeDirect(type, from: json, fieldTypes: fieldTypes) }
        switch (reference, direct) {
        case (.success(let expected), .success(let actual)):
            #expect(expected == actual, sourceLocation: sourceLocation)
            // NB: `==` cannot tell -0.0 from 0.0; the bytes can.
            let expectedBytes = Result { () throws(WireError) in try WireCoding.encodeReference(expected, numbersAsStrings: false) }
            let actualBytes = Result { () throws(WireError) in try WireCoding.encodeReference(actual, numbersAsStrings: false) }
            expectSame(expectedBytes, actualBytes, sourceLocation: sourceLocation)
        case (.failure, .failure):
            // The public entry point reports exactly the reference error.
            let public_ = Result { () throws(WireError) in try WireCoding.decode(type, from: json, fieldTypes: fieldTypes) }
            expectSame(reference, public_, sourceLocation: sourceLocation)
            if case .failure(let expected) = reference, case .failure(let actual) = public_ {
                #expect(expected.codingPath == actual.codingPath, sourceLocation: sourceLocation)
            }
        default:
            Issue.record("reference \(reference) but direct \(direct) for \(json)", sourceLocation: sourceLocation)
        }
    }

    /// The schema the request's own values imply (field name → its type, ignoring the record type).
    static func schema(of request: RecordsModify.Request) -> FieldTypeLookup {
        var types: [String: FieldType] = [:]
        for operation in request.operations {
            for (name, value) in operation.record.fields ?? [:] { types[name] = value.type }
        }
        return FieldTypeLookup { [types] _, name in types[name] }
    }

    /// A schema that assigns arbitrary (but stable) types, mostly wrong ones, to exercise mismatches.
    static let scrambledSchema = FieldTypeLookup { recordType, name in
        let sum = (recordType ?? "").utf8.reduce(0) { $0 + Int($1) } + name.utf8.reduce(0) { $0 + Int($1) }
        let types = FieldType.allCases
        return sum % 4 == 0 ? nil : types[sum % types.count]
    }

    /// Drops the `type` tag from about half of the field value dictionaries under any `fields` key.
    static func removingTypeTags(_ json: JSONValue, random: inout RandomWire) -> JSONValue {
        switch json {
        case .array(let elements):
            return .array(elements.map { removingTypeTags($0, random: &random) })
        case .object(var members):
            for (key, member) in members {
                if key == "fields", case .object(var fields) = member {
                    for (name, field) in fields {
                        guard case .object(var dictionary) = field, random.chance(50) else { continue }
                        dictionary["type"] = nil
                        fields[name] = .object(dictionary)
                    }
                    members[key] = .object(fields)
                } else {
                    members[key] = removingTypeTags(member, random: &random)
                }
            }
            return .object(members)
        default:
            return json
        }
    }

    /// Replaces one random node (pre-order) with a random JSON value.
    static func mutating(_ json: JSONValue, random: inout RandomWire) -> JSONValue {
        var remaining = random.count(nodeCount(json) - 1)
        return replacing(json, remaining: &remaining, random: &random)
    }

    private static func nodeCount(_ json: JSONValue) -> Int {
        switch json {
        case .array(let elements): 1 + elements.reduce(0) { $0 + nodeCount($1) }
        case .object(let members): 1 + members.values.reduce(0) { $0 + nodeCount($1) }
        default: 1
        }
    }

    private static func replacing(_ json: JSONValue, remaining: inout Int, random: inout RandomWire) -> JSONValue {
        if remaining == 0 {
            remaining = -1
            return random.pick([
                .null, .bool(true), .integer(2), .integer(1_747_999_812_000), .double(2.5), .double(2.0), .string("x"),
                .string("AAEC"), .string("42"), .array([]), .array([.integer(1), .double(1.5)]), .array([.string("a")]), .object([:]),
                .object(["recordName": "r"]), .object(["value": "v"]), .object(["value": 1, "type": "TIMESTAMP"]),
                .object(["type": "STRING"]), .object(["latitude": 1, "longitude": 2.0]), .string("create"), .string("update"),
            ])
        }
        remaining -= 1
        switch json {
        case .array(let elements):
            return .array(elements.map { remaining < 0 ? $0 : replacing($0, remaining: &remaining, random: &random) })
        case .object(let members):
            var result = members
            for key in members.keys.sorted() where remaining >= 0 {
                if let member = members[key] { result[key] = replacing(member, remaining: &remaining, random: &random) }
            }
            return .object(result)
        default:
            return json
        }
    }
}
