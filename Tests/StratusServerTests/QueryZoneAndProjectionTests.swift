import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// `zoneID`, `zoneWide`, `desiredKeys` and `numbersAsStrings` on `records/query`.
@Suite struct QueryZoneAndProjectionTests {
    static func note(_ name: String, _ rank: Int64) -> Record {
        Record(recordName: name, recordType: "Note", fields: ["rank": .int64(rank), "title": .string("t-\(name)")])
    }

    /// A zone-wide query searches every zone of the database; a `zoneID` wins over `zoneWide`.
    @Test(arguments: RecordStoreBackend.allCases)
    func zoneWideSearchesEveryZoneAndZoneIDWins(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend) { harness in
            try await harness.createZones(["Alpha", "Beta"])
            try await harness.save([Self.note("d1", 5), Self.note("d2", 1)])
            try await harness.save([Self.note("a1", 3), Self.note("a2", 7)], zone: ZoneID(zoneName: "Alpha"))
            try await harness.save([Self.note("b1", 2), Self.note("d1", 4)], zone: ZoneID(zoneName: "Beta"))

            #expect(try await harness.names(.json("Note")) == ["d1", "d2"])
            #expect(try await harness.names(.json("Note", extra: #","zoneID":{"zoneName":"Alpha"}"#)) == ["a1", "a2"])
            #expect(try await harness.names(.json("Note", extra: #","zoneID":{"zoneName":"Beta"},"zoneWide":true"#)) == ["b1", "d1"])

            let byRank = try await harness.query(.json("Note", sorts: [#"{"fieldName":"rank"}"#], extra: #","zoneWide":true"#))
            #expect(byRank.records.map(QueryHarness.name) == ["d2", "b1", "a1", "d1", "d1", "a2"])
            let zones = byRank.records.compactMap { result -> String? in
                guard case .record(let record) = result else { return nil }
                return record.zoneID?.zoneName
            }
            #expect(zones == ["_defaultZone", "Beta", "Alpha", "Beta", "_defaultZone", "Alpha"])

            let pages = try await harness.allPages(
                .json("Note", sorts: [#"{"fieldName":"rank","ascending":false}"#], extra: #","zoneWide":true,"resultsLimit":1"#))
            #expect(pages.flatMap { $0 } == ["a2", "d1", "d1", "a1", "b1", "d2"])
        }
    }

    /// `desiredKeys` limits the fields returned; an empty list returns none.
    @Test(arguments: RecordStoreBackend.allCases)
    func desiredKeysLimitTheFieldsReturned(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend, seeded: true) { harness in
            var request = try RecordsQuery.Request.json("Item", filters: [#"{"fieldName":"count","comparator":"EQUALS","fieldValue":{"value":1}}"#])
            request.desiredKeys = ["title", "count", "nope"]
            let response = try await harness.query(request)
            guard case .record(let record)? = response.records.first else {
                Issue.record("no record in \(response)")
                return
            }
            #expect(Set(record.fields?.keys.map { $0 } ?? []) == ["title", "count"])
            #expect(record.recordChangeTag != nil)
            #expect(record.created != nil)

            request.desiredKeys = []
            let bare = try await harness.query(request)
            guard case .record(let bareRecord)? = bare.records.first else {
                Issue.record("no record in \(bare)")
                return
            }
            #expect(bareRecord.fields?.isEmpty ?? true)
        }
    }

    /// `numbersAsStrings` writes INT64, DOUBLE and TIMESTAMP values as JSON strings.
    @Test(arguments: RecordStoreBackend.allCases)
    func numbersAsStringsWritesNumbersAsStrings(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend, seeded: true) { harness in
            let body =
                #"{"query":{"recordType":"Item","filterBy":[{"systemFieldName":"recordName","comparator":"EQUALS","fieldValue":{"value":"i1"}}]},"desiredKeys":["count","price","due"],"numbersAsStrings":true}"#
            let (status, data) = try await harness.server.post("records/query", body)
            #expect(status == 200)
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.contains(#""value":"1""#), "\(text)")
            #expect(text.contains(#""value":"1.5""#), "\(text)")
            #expect(text.contains(#""value":"1000""#), "\(text)")
        }
    }

    /// Records written in development are queryable at once (the index is synchronous), and deletions drop them.
    @Test(arguments: RecordStoreBackend.allCases)
    func writesAndDeletesShowInTheNextQuery(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend, seeded: true) { harness in
            let work = #"{"fieldName":"tags","comparator":"LIST_CONTAINS","fieldValue":{"value":"work"}}"#
            #expect(try await harness.names(.json("Item", filters: [work])) == ["i1", "i3"])
            try await harness.save([Items.item("i6", title: "New", count: 6, tags: ["work"])])
            var changed = Items.records[0]
            changed.fields?["tags"] = .stringList(["home"])
            try await harness.save([changed])
            try await harness.delete(["i3"])
            #expect(try await harness.names(.json("Item", filters: [work])) == ["i6"])
            // A field added later: records saved before it sort as missing values.
            try await harness.save([Record(recordName: "i7", recordType: "Item", fields: ["count": .int64(7), "late": .string("x")])])
            let byLate = try await harness.names(.json("Item", sorts: [#"{"fieldName":"late","ascending":false}"#, #"{"fieldName":"count"}"#]))
            #expect(byLate == ["i7", "i1", "i2", "i4", "i5", "i6"])
        }
    }
}
