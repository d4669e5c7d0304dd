import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// `BAD_REQUEST` and `ZONE_NOT_FOUND` answers of `records/query`, with their reasons.
@Suite struct QueryValidationTests {
    /// A production schema whose fields lack some indexes.
    static let productionSchema = Schema(recordTypes: [
        "Doc": RecordTypeSchema(fields: [
            "plain": FieldSchema(type: .string, queryable: false, sortable: false, searchable: false),
            "body": FieldSchema(type: .string, queryable: true, sortable: true, searchable: false),
            "rank": FieldSchema(type: .int64, queryable: true, sortable: false),
        ])
    ])

    static func query(_ filters: [String] = [], sorts: [String] = [], type: String = "Item", extra: String = "") -> String {
        #"{"query":{"recordType":"\#(type)","filterBy":[\#(filters.joined(separator: ","))],"sortBy":[\#(sorts.joined(separator: ","))]}\#(extra)}"#
    }

    static func filter(_ field: String, _ comparator: String, _ value: String, _ extra: String = "") -> String {
        #"{"fieldName":"\#(field)","comparator":"\#(comparator)","fieldValue":\#(value)\#(extra)}"#
    }

    /// Requests the development schema rejects, and a piece of each reason.
    static let badRequests: [(body: String, reason: String)] = [
        (query(type: "Nope"), "did not find record type 'Nope'"),
        (query([filter("nope", "EQUALS", #"{"value":1}"#)]), "Unknown field 'nope' in record type 'Item'"),
        (query(sorts: [#"{"fieldName":"nope"}"#]), "Unknown field 'nope'"),
        (query([filter("count", "BEGINS_WITH", #"{"value":"1"}"#)]), "Comparator BEGINS_WITH cannot be used with field 'count' of type INT64"),
        (query([filter("title", "LIST_CONTAINS", #"{"value":"x"}"#)]), "Comparator LIST_CONTAINS cannot be used with field 'title' of type STRING"),
        (query([filter("tags", "EQUALS", #"{"value":"x"}"#)]), "Comparator EQUALS cannot be used with field 'tags' of type STRING_LIST"),
        (query([filter("scores", "LIST_MEMBER_BEGINS_WITH", #"{"value":"1"}"#)]), "cannot be used with field 'scores' of type INT64_LIST"),
        (query([filter("place", "NEAR", #"{"value":{"latitude":1,"longitude":2},"type":"LOCATION"}"#)]), "NEAR on field 'place' needs 'distance'"),
        (query([filter("place", "NEAR", #"{"value":{"latitude":1,"longitude":2},"type":"LOCATION"}"#, #","distance":-5"#)]), "0 meters or more"),
        (
            query([filter("title", "NEAR", #"{"value":{"latitude":1,"longitude":2},"type":"LOCATION"}"#, #","distance":5"#)]),
            "Comparator NEAR cannot be used with field 'title' of type STRING"
        ),
        (
            query([filter("place", "EQUALS", #"{"value":{"latitude":1,"longitude":2},"type":"LOCATION"}"#)]),
            "cannot be used with field 'place' of type LOCATION"
        ),
        (query([filter("count", "EQUALS", #"{"value":1}"#, #","distance":5"#)]), "'distance' applies only to the NEAR comparator"),
        (query([filter("count", "CONTAINS_ANY_TOKENS", #"{"value":"1"}"#)]), "cannot be used with field 'count' of type INT64"),
        (query([filter("title", "CONTAINS_ALL_TOKENS", #"{"value":"  --  "}"#)]), "has no tokens"),
        (query([filter("count", "EQUALS", #"{"value":"abc"}"#)]), "Invalid value for EQUALS on field 'count': expected INT64, got STRING"),
        (query([filter("count", "IN", #"{"value":3}"#)]), "IN on field 'count' needs a list value (INT64_LIST); got INT64"),
        (query([filter("count", "EQUALS", #"{"value":[1,2],"type":"INT64_LIST"}"#)]), "needs a single INT64 value, not a list"),
        (query([filter("tags", "LIST_CONTAINS_ALL", #"{"value":"x"}"#)]), "needs a list value (STRING_LIST)"),
        (
            query([#"{"systemFieldName":"share","comparator":"EQUALS","fieldValue":{"value":{"recordName":"s"},"type":"REFERENCE"}}"#]),
            "systemFieldName 'share' is not supported"
        ),
        (query(sorts: [#"{"systemFieldName":"parent"}"#]), "systemFieldName 'parent' is not supported"),
        (
            query([#"{"systemFieldName":"createdTimestamp","comparator":"BEGINS_WITH","fieldValue":{"value":1}}"#]),
            "Comparator BEGINS_WITH cannot be used with system field 'createdTimestamp'"
        ),
        (query(sorts: [#"{"fieldName":"place"}"#]), "needs 'relativeLocation'"),
        (
            query(sorts: [#"{"fieldName":"count","relativeLocation":{"value":{"latitude":1,"longitude":2},"type":"LOCATION"}}"#]),
            "'relativeLocation' applies only to LOCATION fields"
        ),
        (query(sorts: [#"{"fieldName":"tags"}"#]), "Field 'tags' is not marked sortable"),
        (query(extra: #","resultsLimit":0"#), "resultsLimit must be at least 1"),
        (query(extra: #","continuationMarker":"garbage""#), "continuation marker is not valid"),
        (query([#"{"comparator":"EQUALS","fieldValue":{"value":1}}"#]), "fieldName"),
        (query([filter("count", "ALMOST", #"{"value":1}"#)]), "ALMOST"),
    ]

    /// Each malformed query fails as a whole with `BAD_REQUEST` (HTTP 400) and a reason naming the problem.
    @Test(arguments: RecordStoreBackend.allCases)
    func invalidQueriesFailWithBadRequestAndAReason(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend, seeded: true) { harness in
            for (body, reason) in Self.badRequests {
                let failure = try await harness.failure(body)
                #expect(failure.status == 400, "\(body)")
                #expect(failure.code == .badRequest, "\(body)")
                #expect(failure.reason.contains(reason), "\(body): \(failure.reason)")
            }
        }
    }

    /// Fields without the needed index are refused in CloudKit's words.
    @Test(arguments: RecordStoreBackend.allCases)
    func fieldsWithoutTheIndexAreRefused(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend) { harness in
            let container = TestCloudKitServer.container
            try await harness.server.store.write { try $0.saveSchema(Self.productionSchema, container: container, environment: .production) }
            let cases: [(String, String)] = [
                (Self.query([Self.filter("plain", "EQUALS", #"{"value":"x"}"#)], type: "Doc"), "Field 'plain' is not marked queryable"),
                (Self.query(sorts: [#"{"fieldName":"rank"}"#], type: "Doc"), "Field 'rank' is not marked sortable"),
                (Self.query([Self.filter("body", "CONTAINS_ANY_TOKENS", #"{"value":"x"}"#)], type: "Doc"), "Field 'body' is not marked searchable"),
                (Self.query(type: "Item"), "did not find record type 'Item' in the production schema"),
            ]
            for (body, reason) in cases {
                let failure = try await harness.failure(body, environment: "production")
                #expect(failure.code == .badRequest, "\(body)")
                #expect(failure.reason == reason, "\(body)")
            }
            let (status, _) = try await harness.server.post(
                "records/query", Self.query([Self.filter("body", "BEGINS_WITH", #"{"value":"x"}"#)], sorts: [#"{"fieldName":"body"}"#], type: "Doc"),
                environment: "production"
            )
            #expect(status == 200)
        }
    }

    /// Unknown zones, and custom zones of the public database, answer `ZONE_NOT_FOUND`.
    @Test(arguments: RecordStoreBackend.allCases)
    func missingZonesAnswerZoneNotFound(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend, seeded: true) { harness in
            let privateFailure = try await harness.failure(Self.query(extra: #","zoneID":{"zoneName":"Nowhere"}"#))
            #expect(privateFailure.status == 404)
            #expect(privateFailure.code == .zoneNotFound)
            #expect(privateFailure.reason.contains("Nowhere"))
            let publicFailure = try await harness.failure(Self.query(extra: #","zoneID":{"zoneName":"Custom"}"#), database: "public")
            #expect(publicFailure.code == .zoneNotFound)
            let (status, _) = try await harness.server.post("records/query", Self.query(), database: "public")
            #expect(status == 200)
        }
    }
}
