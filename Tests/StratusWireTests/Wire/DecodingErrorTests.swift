import Foundation
import StratusWire
import Testing

@Suite struct DecodingErrorTests {
    private func decodeError<T: Decodable>(_ type: T.Type, _ text: String) throws -> WireError {
        try #require(throws: WireError.self) { try WireCoding.decode(type, from: Data(text.utf8)) }
    }

    /// A missing key names the key and the path of its container.
    @Test func missingKeyNamesKeyAndPath() throws {
        let error = try decodeError(
            RecordsModify.Request.self, #"{"operations":[{"operationType":"create","record":{"recordName":"a"}}]}"#)
        #expect(error.reason == "a create operation needs 'recordType' at operations[0].record")
        let missing = try decodeError(RecordsQuery.Request.self, #"{"query":{"filterBy":[]}}"#)
        #expect(missing.code == .missingKey)
        #expect(missing.reason == "missing key 'recordType' at query")
    }

    /// A type mismatch names the path and what was found.
    @Test func typeMismatchNamesPath() throws {
        let error = try decodeError(RecordsQuery.Request.self, #"{"query":{"recordType":"T"},"resultsLimit":"ten"}"#)
        #expect(error.code == .typeMismatch)
        #expect(error.reason == "expected an integer but found a string at resultsLimit")
    }

    /// A bad field value deep inside a request names its full path.
    @Test func badFieldValueNamesFullPath() throws {
        let body = #"""
            {"operations":[{"operationType":"create","record":{"recordType":"T","fields":{}}},
             {"operationType":"forceUpdate","record":{"recordName":"b","fields":{"due":{"value":"soon","type":"TIMESTAMP"}}}}]}
            """#
        let error = try decodeError(RecordsModify.Request.self, body)
        #expect(error.codingPath == "operations[1].record.fields.due.value")
        #expect(error.code == .fieldTypeMismatch)
    }

    /// Operation validation: update needs a change tag, unknown operation types are named.
    @Test func invalidOperationsAreRejected() throws {
        let update = try decodeError(
            RecordsModify.Request.self, #"{"operations":[{"operationType":"update","record":{"recordName":"a"}}]}"#)
        #expect(update.code == .invalidOperation)
        #expect(update.message.contains("recordChangeTag"))
        let unknown = try decodeError(
            RecordsModify.Request.self, #"{"operations":[{"operationType":"upsert","record":{"recordName":"a"}}]}"#)
        #expect(unknown.reason == "unknown operationType 'upsert' at operations[0].operationType")
        let comparator = try decodeError(
            Filter.self, #"{"fieldName":"a","comparator":"LIKE","fieldValue":{"value":1,"type":"INT64"}}"#)
        #expect(comparator.codingPath == "comparator")
        let target = try decodeError(Filter.self, #"{"comparator":"EQUALS","fieldValue":{"value":1,"type":"INT64"}}"#)
        #expect(target.message.contains("fieldName"))
    }

    /// Foundation's DecodingError converts into a path-naming message too.
    @Test func foundationDecodingErrorsAreDescribed() throws {
        do {
            _ = try JSONDecoder().decode(RecordsChanges.Request.self, from: Data(#"{"zoneID":{}}"#.utf8))
            Issue.record("expected an error")
        } catch let error as DecodingError {
            #expect(WireError.describe(error) == "missing key 'zoneName' at zoneID")
            #expect(WireError(error).code == .missingKey)
        }
    }

    /// Broken JSON bodies surface as invalidJSON.
    @Test func brokenBodyIsInvalidJSON() throws {
        let error = try decodeError(RecordsModify.Request.self, "{\"operations\": [")
        #expect(error.code == .invalidJSON)
    }

    /// System field names accept the `___` index spelling.
    @Test func systemFieldNamesAcceptIndexNames() throws {
        let sort = try WireCoding.decode(Sort.self, from: Data(#"{"systemFieldName":"___createTime"}"#.utf8))
        #expect(sort.target == .system(.createdTimestamp))
        for field in SystemFieldName.allCases {
            #expect(SystemFieldName(wireName: field.indexName) == field)
            #expect(SystemFieldName(wireName: field.rawValue) == field)
        }
        #expect(Comparator.allCases.count == 21)
    }

    /// Unknown keys seen on Apple's live service are ignored, not rejected.
    @Test func unknownKeysAreIgnored() throws {
        let body = #"""
            {"recordName":"n","recordType":"cloudkit.share","pluginFields":{},"isEncrypted":true,"encryptedFields":["x"],
             "stableUrl":{"shortGUID":"g","routingKey":"r","displayedHostname":"h"},"fields":{}}
            """#
        let record = try WireCoding.decode(Record.self, from: Data(body.utf8))
        #expect(record == Record(recordName: "n", recordType: "cloudkit.share", fields: [:]))
    }
}
