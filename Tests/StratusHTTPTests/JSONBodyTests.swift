import Foundation
import StratusHTTP
import Testing

@Suite struct JSONBodyTests {
    struct Operation: Decodable {
        struct Record: Decodable {
            var recordType: String
            var fields: [String: Int]?
        }
        var operationType: String
        var record: Record
    }

    struct ModifyBody: Decodable {
        var operations: [Operation]
    }

    struct Optional: Decodable {
        var resultsLimit: Int?
    }

    func request(_ body: String) -> HTTPRequest {
        HTTPRequest(method: .post, path: "/x", headers: ["Content-Type": "text/plain"], body: Data(body.utf8))
    }

    func reason(_ body: String) throws -> String {
        do {
            _ = try request(body).decodeJSON(ModifyBody.self)
            Issue.record("decoding succeeded")
            return ""
        } catch {
            #expect(error.status == .badRequest)
            #expect(error.serverErrorCode == "BAD_REQUEST")
            return error.reason
        }
    }

    /// The body is JSON whatever the Content-Type says (CloudKit's own samples send text/plain).
    @Test func bodyIsJSONWhateverTheContentType() throws {
        let body = try request(#"{"operations":[{"operationType":"create","record":{"recordType":"Note"}}]}"#).decodeJSON(ModifyBody.self)
        #expect(body.operations.first?.record.recordType == "Note")
    }

    /// A missing key is named with its full path.
    @Test func missingKeyNamesThePath() throws {
        let reason = try reason(#"{"operations":[{"operationType":"create","record":{}}]}"#)
        #expect(reason == "missing key 'recordType' at operations[0].record")
    }

    /// A value of the wrong JSON type is named with its path and the expected kind.
    @Test func typeMismatchNamesThePathAndExpectedKind() throws {
        let reason = try reason(#"{"operations":[{"operationType":"create","record":{"recordType":"N","fields":{"a":"x"}}}]}"#)
        #expect(reason.hasPrefix("expected an integer at operations[0].record.fields.a"))
    }

    /// Malformed JSON says so.
    @Test func malformedJSONSaysSo() throws {
        let reason = try reason(#"{"operations": [ }"#)
        #expect(reason.hasPrefix("malformed JSON body"))
    }

    /// Invalid UTF-8 is refused as malformed, never crashes.
    @Test func invalidUTF8IsMalformed() throws {
        var request = request("")
        request.body = Data([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D])
        #expect(throws: HTTPError.self) { try request.decodeJSON(ModifyBody.self) }
    }

    /// Pathologically deep nesting is refused with a 400, not a stack overflow.
    @Test func deeplyNestedJSONIsRefused() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: HTTPError.self) { try request(deep).decodeJSON(ModifyBody.self) }
    }

    /// An empty body decodes as `{}` so all-optional bodies accept a bare POST.
    @Test func emptyBodyDecodesAsEmptyObject() throws {
        #expect(try request("").decodeJSON(Optional.self).resultsLimit == nil)
    }

    /// Null where a value is required is named.
    @Test func nullValueIsNamed() throws {
        let reason = try reason(#"{"operations":null}"#)
        #expect(reason.contains("found null at operations"))
    }
}
