import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// Sort descriptors, continuation markers and keyset paging.
@Suite struct QuerySortAndPagingTests {
    static let fromParis = #""relativeLocation":{"value":{"latitude":48.8566,"longitude":2.3522},"type":"LOCATION"}"#

    /// A sort and the order it gives the five ``Items`` (a missing value sorts first ascending, last descending).
    static let orders: [(sorts: [String], expected: [String])] = [
        ([#"{"fieldName":"count","ascending":false}"#], ["i5", "i4", "i3", "i2", "i1"]),
        ([#"{"fieldName":"title"}"#], ["i5", "i1", "i3", "i4", "i2"]),
        ([#"{"fieldName":"title","ascending":false}"#], ["i2", "i4", "i3", "i1", "i5"]),
        ([#"{"fieldName":"price","ascending":false}"#], ["i4", "i3", "i2", "i1", "i5"]),
        ([#"{"fieldName":"due"}"#], ["i5", "i1", "i2", "i3", "i4"]),
        ([#"{"fieldName":"owner"}"#, #"{"fieldName":"count","ascending":false}"#], ["i5", "i4", "i3", "i1", "i2"]),
        ([#"{"fieldName":"owner","ascending":false}"#, #"{"systemFieldName":"recordName"}"#], ["i2", "i1", "i3", "i4", "i5"]),
        ([#"{"fieldName":"place",\#(fromParis)}"#], ["i5", "i1", "i3", "i2", "i4"]),
        ([#"{"fieldName":"place","ascending":false,\#(fromParis)}"#], ["i4", "i2", "i3", "i1", "i5"]),
        ([#"{"systemFieldName":"recordName","ascending":false}"#], ["i5", "i4", "i3", "i2", "i1"]),
        ([#"{"systemFieldName":"createdTimestamp","ascending":false}"#], ["i5", "i4", "i3", "i2", "i1"]),
        ([#"{"systemFieldName":"createdUserRecordName"}"#, #"{"fieldName":"data","ascending":false}"#], ["i2", "i1", "i3", "i4", "i5"]),
    ]

    /// Every sort gives its order in one page, and the same order page by page with a page size of 1 and 2.
    @Test(arguments: RecordStoreBackend.allCases)
    func sortsOrderRecordsAndPagesKeepTheOrder(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend, seeded: true) { harness in
            for order in Self.orders {
                let whole = try await harness.names(.json("Item", sorts: order.sorts))
                #expect(whole == order.expected, "\(order.sorts)")
                for size in [1, 2] {
                    let pages = try await harness.allPages(.json("Item", sorts: order.sorts, extra: #","resultsLimit":\#(size)"#))
                    #expect(pages.flatMap { $0 } == order.expected, "\(order.sorts) in pages of \(size)")
                    #expect(pages.allSatisfy { $0.count <= size })
                }
            }
        }
    }

    /// A filter and a sort on the same field page correctly (the filter bounds the sort's index scan).
    @Test(arguments: RecordStoreBackend.allCases)
    func filterOnTheSortFieldPagesCorrectly(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend, seeded: true) { harness in
            let filter = #"{"fieldName":"count","comparator":"GREATER_THAN_OR_EQUALS","fieldValue":{"value":2}}"#
            for (ascending, expected) in [(true, ["i2", "i3", "i4", "i5"]), (false, ["i5", "i4", "i3", "i2"])] {
                let pages = try await harness.allPages(
                    .json("Item", filters: [filter], sorts: [#"{"fieldName":"count","ascending":\#(ascending)}"#], extra: #","resultsLimit":1"#)
                )
                #expect(pages.flatMap { $0 } == expected)
            }
        }
    }

    /// Distance sorts combine with NEAR: the nearest first, only those in the circle.
    @Test(arguments: RecordStoreBackend.allCases)
    func nearFilterWithDistanceSortListsTheNearestFirst(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend, seeded: true) { harness in
            let near =
                #"{"fieldName":"place","comparator":"NEAR","fieldValue":{"value":{"latitude":48.80,"longitude":2.12},"type":"LOCATION"},"distance":500000}"#
            let names = try await harness.names(
                .json(
                    "Item", filters: [near],
                    sorts: [#"{"fieldName":"place","relativeLocation":{"value":{"latitude":48.80,"longitude":2.12},"type":"LOCATION"}}"#])
            )
            #expect(names == ["i3", "i1", "i2"])
        }
    }

    /// Many records page through without loss or repetition, and the last page has no marker.
    @Test(arguments: RecordStoreBackend.allCases)
    func pagingVisitsEveryRecordOnce(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend) { harness in
            let records = (0..<450).map { index in
                Record(
                    recordName: String(format: "p%04d", index), recordType: "Page", fields: ["n": .int64(Int64(index % 37)), "s": .string("v\(index % 11)")])
            }
            for batch in stride(from: 0, to: records.count, by: 200) {
                try await harness.save(Array(records[batch..<min(batch + 200, records.count)]))
            }
            let defaultPages = try await harness.allPages(.json("Page"))
            #expect(defaultPages.map(\.count) == [200, 200, 50])
            #expect(defaultPages.flatMap { $0 } == records.compactMap(\.recordName))

            let sorted = try await harness.allPages(
                .json("Page", sorts: [#"{"fieldName":"n","ascending":false}"#, #"{"fieldName":"s"}"#], extra: #","resultsLimit":33"#)
            )
            let expected = records.sorted { a, b in
                let (na, nb) = (a.fields?["n"]?.int64Value ?? 0, b.fields?["n"]?.int64Value ?? 0)
                if na != nb { return na > nb }
                let (sa, sb) = (a.fields?["s"]?.stringValue ?? "", b.fields?["s"]?.stringValue ?? "")
                if sa != sb { return sa < sb }
                return (a.recordName ?? "") > (b.recordName ?? "")  // ties follow the first sort's direction
            }
            #expect(sorted.flatMap { $0 } == expected.compactMap(\.recordName))
        }
    }

    /// Records inserted, updated and deleted while a client pages never make a page skip or
    /// repeat a record that existed throughout.
    @Test(arguments: RecordStoreBackend.allCases)
    func pagingStaysCorrectWhileRecordsChange(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend) { harness in
            let initial = (0..<300).map { index in
                Record(recordName: String(format: "c%04d", index), recordType: "Churn", fields: ["n": .int64(Int64(index)), "note": .string("v0")])
            }
            try await harness.save(Array(initial[0..<200]))
            try await harness.save(Array(initial[200...]))
            let doomed = Set(initial.compactMap(\.recordName).enumerated().filter { $0.offset % 7 == 3 }.map(\.element))
            let survivors = Set(initial.compactMap(\.recordName)).subtracting(doomed)

            let stop = Mutex(false)
            let writer = Task {
                var round = 0
                var pendingDeletes = doomed.sorted()
                while !stop.withLock({ $0 }), round < 400 {
                    round += 1
                    // Insert new records on both sides of the page boundary.
                    try await harness.save([
                        Record(recordName: "new-\(round)", recordType: "Churn", fields: ["n": .int64(Int64((round * 37) % 300)), "note": .string("new")])
                    ])
                    // Update survivors' other fields (their sort key stays).
                    let survivor = String(format: "c%04d", (round * 13) % 300)
                    if survivors.contains(survivor) {
                        try await harness.save([
                            Record(recordName: survivor, recordType: "Churn", fields: ["n": .int64(Int64((round * 13) % 300)), "note": .string("v\(round)")])
                        ])
                    }
                    if let victim = pendingDeletes.popLast() { try await harness.delete([victim]) }
                    await Task.yield()
                }
                return round
            }
            let sorts = [#"{"fieldName":"n"}"#]
            let pages = try await harness.allPages(.json("Churn", sorts: sorts, extra: #","resultsLimit":17"#)) {
                try await Task.sleep(for: .milliseconds(2))
            }
            stop.withLock { $0 = true }
            let rounds = try await writer.value
            #expect(rounds > 3, "the writer barely ran while paging")
            let seen = pages.flatMap { $0 }
            #expect(Set(seen).count == seen.count, "a record came back twice")
            #expect(survivors.isSubset(of: Set(seen)), "missing: \(survivors.subtracting(seen).sorted().prefix(5))")

            // Default order (by name) under the same kind of churn.
            let byName = try await harness.allPages(.json("Churn", extra: #","resultsLimit":23"#)) {
                try await harness.save([Record(recordName: "c0000a", recordType: "Churn", fields: ["n": .int64(0)])])
                try await harness.delete(["c0000a"])
            }
            let names = byName.flatMap { $0 }
            #expect(Set(names).count == names.count)
            #expect(survivors.isSubset(of: Set(names)))
        }
    }

    /// A marker only works with the query that produced it.
    @Test(arguments: RecordStoreBackend.allCases)
    func continuationMarkersAreBoundToTheirQuery(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend, seeded: true) { harness in
            let first = try await harness.query(.json("Item", sorts: [#"{"fieldName":"count"}"#], extra: #","resultsLimit":2"#))
            let marker = try #require(first.continuationMarker)

            var same = try RecordsQuery.Request.json("Item", sorts: [#"{"fieldName":"count"}"#], extra: #","resultsLimit":2"#)
            same.continuationMarker = marker
            same.desiredKeys = ["count"]
            #expect(try await harness.names(same) == ["i3", "i4"])

            for other in [
                try RecordsQuery.Request.json("Item", sorts: [#"{"fieldName":"count","ascending":false}"#]),
                try RecordsQuery.Request.json(
                    "Item", filters: [#"{"fieldName":"count","comparator":"GREATER_THAN","fieldValue":{"value":0}}"#], sorts: [#"{"fieldName":"count"}"#]),
                try RecordsQuery.Request.json("Item", sorts: [#"{"fieldName":"count"}"#], extra: #","zoneWide":true"#),
            ] {
                var replay = other
                replay.continuationMarker = marker
                let body = String(decoding: try WireCoding.encode(replay), as: UTF8.self)
                let failure = try await harness.failure(body)
                #expect(failure.status == 400)
                #expect(failure.code == .badRequest)
                #expect(failure.reason.contains("different query"))
            }
            var characters = Array(marker.rawValue)
            characters[characters.count / 2] = characters[characters.count / 2] == "A" ? "B" : "A"
            for text in [String(characters), String(marker.rawValue.dropLast(2)), marker.rawValue + "AA", "", "%%%"] {
                var forged = same
                forged.continuationMarker = ContinuationMarker(text)
                let failure = try await harness.failure(String(decoding: try WireCoding.encode(forged), as: UTF8.self))
                #expect(failure.code == .badRequest)
                #expect(failure.reason.contains("not valid"))
            }
        }
    }
}
