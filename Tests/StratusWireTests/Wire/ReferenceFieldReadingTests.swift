import Foundation
import Testing

@testable import StratusWire

/// REFERENCE field values are read directly, without `Codable`; they give the value the `Codable`
/// reader gives and, for what it rejects, its error.
@Suite struct ReferenceFieldReadingTests {
    static let values = [
        #"{"recordName":"a"}"#,
        #"{"recordName":"a","zoneID":{"zoneName":"Z","ownerRecordName":"_o"},"action":"DELETE_SELF"}"#,
        #"{"recordName":"a","zoneID":null,"action":null,"extra":[1,{"x":2}]}"#,
        #"{"recordName":"a","action":"SOMETHING_NEW"}"#,
        #"{}"#,
        #"{"recordName":7}"#,
        #"{"recordName":null}"#,
        #"{"recordName":"a","zoneID":"Z"}"#,
        #"{"recordName":"a","zoneID":{}}"#,
        #"{"recordName":"a","action":1}"#,
        #""a""#,
    ]

    enum Outcome: Equatable {
        case read(FieldValue)
        case failed(String)
    }

    /// What the `Codable` reader makes of `value` at `path`, made into a field value by `wrap`.
    static func viaCodable(_ value: String, path: [any CodingKey], wrap: (Reference) -> FieldValue) throws -> Outcome? {
        let json = try JSONValue(parsing: value)
        guard case .object = json else { return nil }
        do {
            return .read(wrap(try JSONValueDecoder(value: json, codingPath: path, userInfo: [:]).unbox(json, as: Reference.self, at: path)))
        } catch {
            return .failed(WireCoding.wireError(from: error).description)
        }
    }

    /// What `FieldValue(json:)` makes of a field's JSON.
    static func direct(_ field: String) throws -> Outcome {
        let json = try JSONValue(parsing: field)
        do {
            return .read(try FieldValue(json: json))
        } catch {
            return .failed(error.description)
        }
    }

    @Test(arguments: values)
    func aReferenceReadsAsThroughCodable(value: String) throws {
        let read = try Self.direct(#"{"type":"REFERENCE","value":\#(value)}"#)
        if let expected = try Self.viaCodable(value, path: [WireCodingKey("value")], wrap: { .reference($0) }) {
            #expect(read == expected)
        } else {
            if case .read = read { Issue.record("a reference that is not an object was read") }
        }
    }

    @Test(arguments: values)
    func aReferenceListElementReadsAsThroughCodable(value: String) throws {
        let read = try Self.direct(#"{"type":"REFERENCE_LIST","value":[{"recordName":"first"},\#(value)]}"#)
        let path: [any CodingKey] = [WireCodingKey("value"), WireCodingKey(index: 1)]
        if let expected = try Self.viaCodable(value, path: path, wrap: { .referenceList([Reference(recordName: "first"), $0]) }) {
            #expect(read == expected)
        } else {
            if case .read = read { Issue.record("a reference that is not an object was read") }
        }
    }
}
