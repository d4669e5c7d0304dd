import Foundation
import StratusClient
import StratusWire
import Testing

/// The typed filter and sort builders produce exactly Apple's CloudKit Web Services Reference: “Query, filter, comparator, sort”'s JSON, with type tags.
@Suite struct QueryFilterTests {
    static let place = Location(latitude: 48.5, longitude: 2.25)
    static let date = Date(timeIntervalSince1970: 1_747_999_812)

    /// One filter per comparator of the protocol, with its exact JSON.
    static let cases: [(QueryFilter, String)] = [
        (.equals("title", "Ship"), #"{"comparator":"EQUALS","fieldName":"title","fieldValue":{"type":"STRING","value":"Ship"}}"#),
        (.notEquals("rank", 3), #"{"comparator":"NOT_EQUALS","fieldName":"rank","fieldValue":{"type":"INT64","value":3}}"#),
        (.lessThan("ratio", 2.0), #"{"comparator":"LESS_THAN","fieldName":"ratio","fieldValue":{"type":"DOUBLE","value":2}}"#),
        (.lessThanOrEquals("due", date), #"{"comparator":"LESS_THAN_OR_EQUALS","fieldName":"due","fieldValue":{"type":"TIMESTAMP","value":1747999812000}}"#),
        (.greaterThan("title", "a"), #"{"comparator":"GREATER_THAN","fieldName":"title","fieldValue":{"type":"STRING","value":"a"}}"#),
        (.greaterThanOrEquals("rank", Int64(5)), #"{"comparator":"GREATER_THAN_OR_EQUALS","fieldName":"rank","fieldValue":{"type":"INT64","value":5}}"#),
        (.in("rank", [1, 2]), #"{"comparator":"IN","fieldName":"rank","fieldValue":{"type":"INT64_LIST","value":[1,2]}}"#),
        (.notIn("owner", ["ann"]), #"{"comparator":"NOT_IN","fieldName":"owner","fieldValue":{"type":"STRING_LIST","value":["ann"]}}"#),
        (.beginsWith("title", "Sh"), #"{"comparator":"BEGINS_WITH","fieldName":"title","fieldValue":{"type":"STRING","value":"Sh"}}"#),
        (.notBeginsWith("title", "x"), #"{"comparator":"NOT_BEGINS_WITH","fieldName":"title","fieldValue":{"type":"STRING","value":"x"}}"#),
        (.containsAllTokens("body", "red car"), #"{"comparator":"CONTAINS_ALL_TOKENS","fieldName":"body","fieldValue":{"type":"STRING","value":"red car"}}"#),
        (.containsAnyTokens("body", "red car"), #"{"comparator":"CONTAINS_ANY_TOKENS","fieldName":"body","fieldValue":{"type":"STRING","value":"red car"}}"#),
        (
            .near("place", place, radius: 1000),
            #"{"comparator":"NEAR","distance":1000,"fieldName":"place","fieldValue":{"type":"LOCATION","value":{"latitude":48.5,"longitude":2.25}}}"#
        ),
        (.listContains("tags", "work"), #"{"comparator":"LIST_CONTAINS","fieldName":"tags","fieldValue":{"type":"STRING","value":"work"}}"#),
        (.notListContains("tags", "work"), #"{"comparator":"NOT_LIST_CONTAINS","fieldName":"tags","fieldValue":{"type":"STRING","value":"work"}}"#),
        (.listContainsAny("scores", [1, 2]), #"{"comparator":"LIST_CONTAINS_ANY","fieldName":"scores","fieldValue":{"type":"INT64_LIST","value":[1,2]}}"#),
        (.notListContainsAny("tags", ["a"]), #"{"comparator":"NOT_LIST_CONTAINS_ANY","fieldName":"tags","fieldValue":{"type":"STRING_LIST","value":["a"]}}"#),
        (
            .listContainsAll("tags", ["a", "b"]),
            #"{"comparator":"LIST_CONTAINS_ALL","fieldName":"tags","fieldValue":{"type":"STRING_LIST","value":["a","b"]}}"#
        ),
        (.notListContainsAll("tags", ["a"]), #"{"comparator":"NOT_LIST_CONTAINS_ALL","fieldName":"tags","fieldValue":{"type":"STRING_LIST","value":["a"]}}"#),
        (.listMemberBeginsWith("tags", "wo"), #"{"comparator":"LIST_MEMBER_BEGINS_WITH","fieldName":"tags","fieldValue":{"type":"STRING","value":"wo"}}"#),
        (
            .notListMemberBeginsWith("tags", "wo"),
            #"{"comparator":"NOT_LIST_MEMBER_BEGINS_WITH","fieldName":"tags","fieldValue":{"type":"STRING","value":"wo"}}"#
        ),
    ]

    /// Each builder writes its comparator, target and tagged value exactly.
    @Test func everyComparatorProducesItsJSON() throws {
        for (filter, expected) in Self.cases {
            #expect(try canonicalJSON(filter.wire) == expected)
        }
        let covered = Set(Self.cases.map(\.0.wire.comparator))
        #expect(covered == Set(Comparator.allCases), "a builder exists for every comparator")
    }

    /// System fields are written as systemFieldName with their typed values.
    @Test func systemFieldsUseSystemFieldName() throws {
        #expect(
            try canonicalJSON(QueryFilter.lessThan(.createdTimestamp, Self.date).wire)
                == #"{"comparator":"LESS_THAN","fieldValue":{"type":"TIMESTAMP","value":1747999812000},"systemFieldName":"createdTimestamp"}"#)
        #expect(
            try canonicalJSON(QueryFilter.equals(.createdUserRecordName, Reference(recordName: "_abc")).wire)
                == #"{"comparator":"EQUALS","fieldValue":{"type":"REFERENCE","value":{"recordName":"_abc"}},"systemFieldName":"createdUserRecordName"}"#)
        #expect(try canonicalJSON(QueryFilter.equals(.recordName, Reference(recordName: "n1")).wire).contains(#""systemFieldName":"recordName""#))
        #expect(try canonicalJSON(QueryFilter.notEquals(.modifiedUserRecordName, Reference(recordName: "_x")).wire).contains("modifiedUserRecordName"))
        #expect(try canonicalJSON(QueryFilter.greaterThan(.modifiedTimestamp, Self.date).wire).contains("modifiedTimestamp"))
        #expect(try canonicalJSON(QueryFilter.equals(.share, Reference(recordName: "s")).wire).contains(#""systemFieldName":"share""#))
        #expect(try canonicalJSON(QueryFilter.equals(.parent, Reference(recordName: "p")).wire).contains(#""systemFieldName":"parent""#))
    }

    /// Sorts: field or system field, direction, and distance from a location.
    @Test func sortsProduceTheirJSON() throws {
        #expect(try canonicalJSON(QuerySort.ascending("rank").wire) == #"{"ascending":true,"fieldName":"rank"}"#)
        #expect(try canonicalJSON(QuerySort.descending(QueryKey<Date>.createdTimestamp).wire) == #"{"ascending":false,"systemFieldName":"createdTimestamp"}"#)
        #expect(
            try canonicalJSON(QuerySort.distance("place", from: Self.place).wire)
                == #"{"ascending":true,"fieldName":"place","relativeLocation":{"type":"LOCATION","value":{"latitude":48.5,"longitude":2.25}}}"#)
    }

    /// The query dictionary matches the example request of Apple's CloudKit Web Services Reference.
    @Test func queryMatchesTheProtocolExample() throws {
        let query = Query(
            recordType: "Note",
            filters: [.equals(.createdUserRecordName, Reference(recordName: "_abc")), .listContains("tags", "work")],
            sorts: [.descending(QueryKey<Date>.createdTimestamp)])
        let request = RecordsQuery.Request(query: query, zoneID: ZoneID(zoneName: "Inbox"), resultsLimit: 50, desiredKeys: ["title", "tags"])
        #expect(
            try canonicalJSON(request)
                == #"{"desiredKeys":["title","tags"],"query":{"filterBy":[{"comparator":"EQUALS","fieldValue":{"type":"REFERENCE","value":{"recordName":"_abc"}},"systemFieldName":"createdUserRecordName"},{"comparator":"LIST_CONTAINS","fieldName":"tags","fieldValue":{"type":"STRING","value":"work"}}],"recordType":"Note","sortBy":[{"ascending":false,"systemFieldName":"createdTimestamp"}]},"resultsLimit":50,"zoneID":{"zoneName":"Inbox"}}"#
        )
        #expect(Query(recordType: "Note", filters: []).filterBy == nil)
    }
}
