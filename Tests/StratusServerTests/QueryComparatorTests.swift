import Foundation
@testable import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Every comparator of Apple's CloudKit Web Services Reference: “Query, filter, comparator, sort”, positive and negative, over the five ``Items``.
@Suite struct QueryComparatorTests {
    /// A filter written as wire JSON and the names it keeps, in record-name order.
    struct Case: CustomStringConvertible {
        var filter: String
        var expected: [String]
        var description: String { filter }

        init(_ filter: String, _ expected: [String]) {
            self.filter = filter
            self.expected = expected
        }
    }

    static func field(_ name: String, _ comparator: String, _ value: String, _ extra: String = "") -> String {
        #"{"fieldName":"\#(name)","comparator":"\#(comparator)","fieldValue":\#(value)\#(extra)}"#
    }

    static let scalarCases: [Case] = [
        Case(field("title", "EQUALS", #"{"value":"Milk run"}"#), ["i3"]),
        Case(field("title", "EQUALS", #"{"value":"milk run"}"#), []),
        Case(field("count", "EQUALS", #"{"value":2}"#), ["i2"]),
        Case(field("count", "EQUALS", #"{"value":99}"#), []),
        Case(field("price", "EQUALS", #"{"value":2.5,"type":"DOUBLE"}"#), ["i2"]),
        Case(field("price", "EQUALS", #"{"value":3}"#), []),
        Case(field("due", "EQUALS", #"{"value":3000,"type":"TIMESTAMP"}"#), ["i3"]),
        Case(field("due", "EQUALS", #"{"value":3000}"#), ["i3"]),
        Case(field("owner", "EQUALS", #"{"value":{"recordName":"u1"},"type":"REFERENCE"}"#), ["i1", "i3"]),
        Case(field("data", "EQUALS", #"{"value":"Aw==","type":"BYTES"}"#), ["i2"]),
        Case(field("count", "NOT_EQUALS", #"{"value":2}"#), ["i1", "i3", "i4", "i5"]),
        Case(field("title", "NOT_EQUALS", #"{"value":"Milk run"}"#), ["i1", "i2", "i4", "i5"]),
        Case(field("count", "LESS_THAN", #"{"value":3}"#), ["i1", "i2"]),
        Case(field("due", "LESS_THAN", #"{"value":1000,"type":"TIMESTAMP"}"#), []),
        Case(field("count", "LESS_THAN_OR_EQUALS", #"{"value":3}"#), ["i1", "i2", "i3"]),
        Case(field("count", "LESS_THAN_OR_EQUALS", #"{"value":0}"#), []),
        Case(field("price", "GREATER_THAN", #"{"value":3.0,"type":"DOUBLE"}"#), ["i3", "i4"]),
        Case(field("price", "GREATER_THAN", #"{"value":4.5,"type":"DOUBLE"}"#), []),
        Case(field("due", "GREATER_THAN_OR_EQUALS", #"{"value":3000,"type":"TIMESTAMP"}"#), ["i3", "i4"]),
        Case(field("due", "GREATER_THAN_OR_EQUALS", #"{"value":4001,"type":"TIMESTAMP"}"#), []),
        Case(field("title", "LESS_THAN", #"{"value":"Oat"}"#), ["i1", "i3"]),
        Case(field("count", "IN", #"{"value":[1,4,9],"type":"INT64_LIST"}"#), ["i1", "i4"]),
        Case(field("title", "IN", #"{"value":["Milk run","nope"],"type":"STRING_LIST"}"#), ["i3"]),
        Case(field("count", "IN", #"{"value":[7,8],"type":"INT64_LIST"}"#), []),
        Case(field("count", "NOT_IN", #"{"value":[1,4],"type":"INT64_LIST"}"#), ["i2", "i3", "i5"]),
        Case(field("count", "NOT_IN", #"{"value":[1,2,3,4,5],"type":"INT64_LIST"}"#), []),
        Case(field("title", "BEGINS_WITH", #"{"value":"Oat"}"#), ["i4"]),
        Case(field("title", "BEGINS_WITH", #"{"value":"Milk"}"#), ["i3"]),
        Case(field("title", "BEGINS_WITH", #"{"value":"milk"}"#), []),
        Case(field("title", "NOT_BEGINS_WITH", #"{"value":"Oat"}"#), ["i1", "i2", "i3", "i5"]),
        Case(field("title", "CONTAINS_ALL_TOKENS", #"{"value":"milk OAT"}"#), ["i1"]),
        Case(field("title", "CONTAINS_ALL_TOKENS", #"{"value":"MILK"}"#), ["i1", "i3"]),
        Case(field("title", "CONTAINS_ALL_TOKENS", #"{"value":"milk dog"}"#), []),
        Case(field("title", "CONTAINS_ANY_TOKENS", #"{"value":"dog, recipe!"}"#), ["i2", "i4"]),
        Case(field("title", "CONTAINS_ANY_TOKENS", #"{"value":"cat"}"#), []),
    ]

    static let locationAndListCases: [Case] = [
        Case(field("place", "NEAR", #"{"value":{"latitude":48.8566,"longitude":2.3522},"type":"LOCATION"}"#, #","distance":50000"#), ["i1", "i3"]),
        Case(field("place", "NEAR", #"{"value":{"latitude":48.8566,"longitude":2.3522},"type":"LOCATION"}"#, #","distance":1000"#), ["i1"]),
        Case(field("place", "NEAR", #"{"value":{"latitude":48.8566,"longitude":2.3522},"type":"LOCATION"}"#, #","distance":400000"#), ["i1", "i2", "i3"]),
        Case(field("place", "NEAR", #"{"value":{"latitude":0,"longitude":0},"type":"LOCATION"}"#, #","distance":1000"#), []),
        Case(field("tags", "LIST_CONTAINS", #"{"value":"work"}"#), ["i1", "i3"]),
        Case(field("scores", "LIST_CONTAINS", #"{"value":2}"#), ["i1", "i2"]),
        Case(field("tags", "LIST_CONTAINS", #"{"value":"play"}"#), []),
        Case(field("tags", "NOT_LIST_CONTAINS", #"{"value":"work"}"#), ["i2", "i4", "i5"]),
        Case(field("tags", "LIST_CONTAINS_ANY", #"{"value":["urgent","home"],"type":"STRING_LIST"}"#), ["i1", "i2", "i3"]),
        Case(field("tags", "LIST_CONTAINS_ANY", #"{"value":["play"],"type":"STRING_LIST"}"#), []),
        Case(field("tags", "NOT_LIST_CONTAINS_ANY", #"{"value":["urgent","home"],"type":"STRING_LIST"}"#), ["i4", "i5"]),
        Case(field("tags", "LIST_CONTAINS_ALL", #"{"value":["work","home"],"type":"STRING_LIST"}"#), ["i3"]),
        Case(field("scores", "LIST_CONTAINS_ALL", #"{"value":[2],"type":"INT64_LIST"}"#), ["i1", "i2"]),
        Case(field("tags", "LIST_CONTAINS_ALL", #"{"value":["work","play"],"type":"STRING_LIST"}"#), []),
        Case(field("tags", "NOT_LIST_CONTAINS_ALL", #"{"value":["work","home"],"type":"STRING_LIST"}"#), ["i1", "i2", "i4", "i5"]),
        Case(field("tags", "LIST_MEMBER_BEGINS_WITH", #"{"value":"ur"}"#), ["i1"]),
        Case(field("tags", "LIST_MEMBER_BEGINS_WITH", #"{"value":"ho"}"#), ["i2", "i3"]),
        Case(field("tags", "LIST_MEMBER_BEGINS_WITH", #"{"value":"x"}"#), []),
        Case(field("tags", "NOT_LIST_MEMBER_BEGINS_WITH", #"{"value":"ho"}"#), ["i1", "i4", "i5"]),
    ]

    static let systemCases: [Case] = [
        Case(#"{"systemFieldName":"recordName","comparator":"EQUALS","fieldValue":{"value":"i2"}}"#, ["i2"]),
        Case(#"{"systemFieldName":"recordName","comparator":"EQUALS","fieldValue":{"value":{"recordName":"i4"},"type":"REFERENCE"}}"#, ["i4"]),
        Case(#"{"systemFieldName":"___recordId","comparator":"IN","fieldValue":{"value":["i1","i5"],"type":"STRING_LIST"}}"#, ["i1", "i5"]),
        Case(#"{"systemFieldName":"recordName","comparator":"GREATER_THAN","fieldValue":{"value":"i3"}}"#, ["i4", "i5"]),
        Case(#"{"systemFieldName":"recordName","comparator":"NOT_EQUALS","fieldValue":{"value":"i3"}}"#, ["i1", "i2", "i4", "i5"]),
        Case(#"{"systemFieldName":"recordName","comparator":"BEGINS_WITH","fieldValue":{"value":"j"}}"#, []),
        Case(
            #"{"systemFieldName":"createdUserRecordName","comparator":"EQUALS","fieldValue":{"value":{"recordName":"_00000000000000000000000000000001"},"type":"REFERENCE"}}"#,
            ["i1", "i2", "i3", "i4", "i5"]
        ),
        Case(#"{"systemFieldName":"modifiedUserRecordName","comparator":"EQUALS","fieldValue":{"value":"_someoneElse"}}"#, []),
    ]

    /// A query with one filter returns exactly the records the filter keeps.
    @Test(arguments: RecordStoreBackend.allCases)
    func everyComparatorKeepsExactlyTheMatchingRecords(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend, seeded: true) { harness in
            for testCase in Self.scalarCases + Self.locationAndListCases + Self.systemCases {
                let names = try await harness.names(.json("Item", filters: [testCase.filter]))
                #expect(names == testCase.expected, "\(testCase.filter)")
            }
        }
    }

    /// The in-memory evaluator of query subscriptions keeps exactly what the query index returns,
    /// for every case above: a subscription fires for the records its query finds. The query-filter
    /// fuzz target found them disagreeing: `NOT_…` on a record without the field (i5 has no title).
    @Test func subscriptionEvaluatorKeepsWhatTheQueryReturns() async throws {
        try await QueryHarness.with(.sqlite) { harness in
            var stored: [StoredRecord] = []
            for record in Items.records {
                stored += try await harness.save([record]).compactMap(Self.stored)
            }
            for testCase in Self.scalarCases + Self.locationAndListCases + Self.systemCases {
                let filters = try RecordsQuery.Request.json("Item", filters: [testCase.filter]).query.filterBy ?? []
                let kept = stored.filter { RecordFilterEvaluator.matches(filters, $0) }.map(\.recordName).sorted()
                #expect(kept == testCase.expected, "\(testCase.filter)")
            }
        }
    }

    /// A saved record as the store holds it, for the evaluator.
    static func stored(_ record: Record) -> StoredRecord? {
        guard let name = record.recordName, let created = record.created, let modified = record.modified else { return nil }
        return StoredRecord(
            zoneRowID: 1, recordName: name, recordType: record.recordType ?? "", changeTag: record.recordChangeTag?.rawValue ?? "",
            fields: record.fields ?? [:],
            created: .init(timestamp: created.timestamp.millisecondsSince1970, userRecordName: created.userRecordName ?? "", deviceID: ""),
            modified: .init(timestamp: modified.timestamp.millisecondsSince1970, userRecordName: modified.userRecordName ?? "", deviceID: ""),
            changeSequence: 1)
    }

    /// Filters are ANDed.
    @Test(arguments: RecordStoreBackend.allCases)
    func filtersAreAllApplied(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend, seeded: true) { harness in
            let names = try await harness.names(
                .json(
                    "Item",
                    filters: [
                        Self.field("tags", "LIST_CONTAINS", #"{"value":"work"}"#),
                        Self.field("count", "GREATER_THAN", #"{"value":1}"#),
                        Self.field("title", "CONTAINS_ANY_TOKENS", #"{"value":"milk"}"#),
                    ])
            )
            #expect(names == ["i3"])
        }
    }

    /// Creation and modification times filter on the server's stamps.
    @Test(arguments: RecordStoreBackend.allCases)
    func timestampSystemFieldsFilterOnTheServerStamps(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend) { harness in
            var created: [String: Int64] = [:]
            for record in Items.records {
                let saved = try await harness.save([record])
                created[record.recordName ?? ""] = saved.first?.created?.timestamp.millisecondsSince1970
            }
            let third = try #require(created["i3"])
            let later = try await harness.names(
                .json(
                    "Item",
                    filters: [#"{"systemFieldName":"createdTimestamp","comparator":"GREATER_THAN","fieldValue":{"value":\#(third),"type":"TIMESTAMP"}}"#])
            )
            #expect(later == ["i4", "i5"])
            let exact = try await harness.names(
                .json("Item", filters: [#"{"systemFieldName":"___createTime","comparator":"EQUALS","fieldValue":{"value":\#(third)}}"#])
            )
            #expect(exact == ["i3"])

            var touched = Items.records[1]
            touched.fields?["count"] = .int64(20)
            let modified = try #require(try await harness.save([touched]).first?.modified?.timestamp.millisecondsSince1970)
            let recent = try await harness.names(
                .json(
                    "Item",
                    filters: [
                        #"{"systemFieldName":"modifiedTimestamp","comparator":"GREATER_THAN_OR_EQUALS","fieldValue":{"value":\#(modified),"type":"TIMESTAMP"}}"#
                    ])
            )
            #expect(recent == ["i2"])
            let newestFirst = try await harness.names(.json("Item", sorts: [#"{"systemFieldName":"modifiedTimestamp","ascending":false}"#]))
            #expect(newestFirst == ["i2", "i5", "i4", "i3", "i1"])
            let oldestFirst = try await harness.names(.json("Item", sorts: [#"{"systemFieldName":"createdTimestamp"}"#]))
            #expect(oldestFirst == ["i1", "i2", "i3", "i4", "i5"])
        }
    }
}
