import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Bad input gets the right code, status and a reason naming the problem — and never changes data.
@Suite struct RecordsValidationConformanceTests {
    static let backends = RecordStoreBackend.allCases

    /// More than 200 operations is a whole-request BAD_REQUEST that applies nothing.
    @Test(arguments: backends) func moreThan200OperationsIsRefusedWhole(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let operations = (0...200).map { #"{"operationType":"create","record":{"recordType":"Note","recordName":"r\#($0)"}}"# }
            let (status, json) = try await server.postJSON("records/modify", #"{"operations":[\#(operations.joined(separator: ","))]}"#)
            #expect(status == 400)
            #expect(json.string("serverErrorCode") == "BAD_REQUEST")
            #expect(json.string("reason")?.contains("at most 200 operations") == true)
            #expect(try await server.lookup(["r0"]).first?.code == .notFound)
        }
    }

    /// A record over 1 MB (assets excluded) is refused naming the size and the limit.
    @Test(arguments: backends) func recordOverOneMegabyteIsRefused(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let big = String(repeating: "x", count: 1_100_000)
            let results = try await server.modify([.create(Record(recordName: "big", recordType: "Note", fields: ["body": .string(big)]))])
            #expect(results.first?.code == .badRequest)
            #expect(results.first?.error?.reason?.contains("limit is 1048576 bytes") == true)
            #expect(try await server.lookup(["big"]).first?.code == .notFound)
        }
    }

    /// One operation per record per request.
    @Test(arguments: backends) func duplicateRecordNamesInOneRequestAreRefused(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let body =
                #"{"operations":[{"operationType":"create","record":{"recordType":"Note","recordName":"a"}},{"operationType":"forceDelete","record":{"recordName":"a"}}]}"#
            let (status, json) = try await server.postJSON("records/modify", body)
            #expect(status == 400)
            #expect(json.string("reason")?.contains("'a' appears in more than one operation") == true)
        }
    }

    /// A tagged value whose type clashes with the schema is refused naming the field and both types.
    @Test(arguments: backends) func typeClashNamesTheFieldAndBothTypes(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.create("n1", fields: ["due": .timestamp(Timestamp(millisecondsSince1970: 1_000))])
            let body =
                #"{"operations":[{"operationType":"create","record":{"recordType":"Note","recordName":"n2","fields":{"due":{"value":"tomorrow","type":"STRING"}}}}]}"#
            let (status, json) = try await server.postJSON("records/modify", body)
            #expect(status == 400)
            let reason = try #require(json.string("reason"))
            #expect(reason.contains("fields.due") && reason.contains("TIMESTAMP") && reason.contains("STRING"))
            #expect(try await server.lookup(["n2"]).first?.code == .notFound)
        }
    }

    /// A clash on a record type the request does not name is found by the schema check, per record.
    @Test(arguments: backends) func typeClashOnAnotherRecordTypeIsAPerRecordError(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.create("n1", type: "Note", fields: ["due": .timestamp(Timestamp(millisecondsSince1970: 1_000))])
            try await server.create("t1", type: "Task", fields: ["due": .string("soon")])
            let tag = try #require(try await server.lookup(["t1"]).first?.record?.recordChangeTag)
            let results = try await server.modify([.update(Record(recordName: "t1", fields: ["due": .int64(5)]), expecting: tag)])
            #expect(results.first?.code == .badRequest)
            let reason = try #require(results.first?.error?.reason)
            #expect(reason.contains("'due'") && reason.contains("STRING") && reason.contains("INT64"))
        }
    }

    /// An untagged epoch-ms number for a TIMESTAMP field is a date (the schema interprets it).
    @Test(arguments: backends) func untaggedNumberForTimestampFieldIsADate(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.create("n1", fields: ["due": .timestamp(Timestamp(millisecondsSince1970: 1_000))])
            let body = #"{"operations":[{"operationType":"create","record":{"recordType":"Note","recordName":"n2","fields":{"due":{"value":1747999812000}}}}]}"#
            let (status, _) = try await server.postJSON("records/modify", body)
            #expect(status == 200)
            #expect(try await server.lookup(["n2"]).first?.record?.fields?["due"] == .timestamp(Timestamp(millisecondsSince1970: 1_747_999_812_000)))
        }
    }

    /// A value that contradicts the schema type is a 400 naming the path, and nothing is written.
    @Test(arguments: backends) func contradictoryValueIsRefusedWithItsPath(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.create("n1", fields: ["due": .timestamp(Timestamp(millisecondsSince1970: 1_000))])
            let body = #"{"operations":[{"operationType":"create","record":{"recordType":"Note","recordName":"n2","fields":{"due":{"value":"soon"}}}}]}"#
            let (status, json) = try await server.postJSON("records/modify", body)
            #expect(status == 400)
            #expect(json.string("reason")?.contains("operations[0].record.fields.due") == true)
            #expect(try await server.lookup(["n2"]).first?.code == .notFound)
        }
    }

    /// Malformed operations are 400s that say what is wrong.
    @Test(arguments: backends) func malformedOperationsAreExplained(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let cases: [(String, String)] = [
                (#"{"operations":[{"operationType":"update","record":{"recordName":"a","fields":{}}}]}"#, "recordChangeTag"),
                (#"{"operations":[{"operationType":"create","record":{"recordName":"a"}}]}"#, "recordType"),
                (#"{"operations":[{"operationType":"explode","record":{"recordName":"a"}}]}"#, "explode"),
                (#"{"operations":{}}"#, "operations"),
                (#"{"operations":[{"operationType":"create""#, "invalid JSON"),
                (#"{}"#, "operations"),
            ]
            for (body, mention) in cases {
                let (status, json) = try await server.postJSON("records/modify", body)
                #expect(status == 400, "\(body)")
                #expect(json.string("serverErrorCode") == "BAD_REQUEST")
                #expect(json.string("reason")?.contains(mention) == true, "reason for \(body): \(json.string("reason") ?? "none")")
            }
        }
    }

    /// Invalid record names and types are refused.
    @Test(arguments: backends) func invalidNamesAreRefused(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let results = try await server.modify([
                .create(Record(recordName: String(repeating: "n", count: 300), recordType: "Note", fields: [:])),
                .create(Record(recordName: "ok", recordType: "9Lives", fields: [:])),
                .create(Record(recordName: "ok2", recordType: "Note", fields: ["bad name": .int64(1)])),
            ])
            #expect(results.map(\.code) == [.badRequest, .badRequest, .badRequest])
        }
    }

    /// Operations in a zone that does not exist fail with ZONE_NOT_FOUND.
    @Test(arguments: backends) func unknownZoneFailsEachOperation(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let results = try await server.modify([.create(Record(recordName: "a", recordType: "Note", fields: [:]))], zone: "Nowhere")
            #expect(results.map(\.code) == [.zoneNotFound])
        }
    }

    /// `numbersAsStrings` writes number field values as JSON strings.
    @Test(arguments: backends) func numbersAsStringsWritesNumbersAsStrings(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let body =
                #"{"numbersAsStrings":true,"operations":[{"operationType":"create","record":{"recordType":"Note","recordName":"n","fields":{"big":{"value":9007199254740993,"type":"INT64"}}}}]}"#
            let (status, data) = try await server.post("records/modify", body)
            #expect(status == 200)
            #expect(String(decoding: data, as: UTF8.self).contains(#""value":"9007199254740993""#))
        }
    }
}
