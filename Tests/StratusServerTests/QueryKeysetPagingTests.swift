import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Paging in the store's order and by one system field, where PostgreSQL reads candidates in
/// order a chunk at a time (`PostgresQueryKeyset`): with a filter that only the exact check
/// applies, small pages must still be complete, in order and without repeats, as on SQLite.
@Suite struct QueryKeysetPagingTests {
    /// 60 records; names include non-ASCII ones (code-point order); every sixth and fifth has `keep = 1`;
    /// `rank` is the index modulo 7, missing on every fourth.
    static let names = (0..<57).map { String(format: "k%02d", $0) } + ["Äpfel", "zebra", "éclair"]

    static func seed(_ harness: QueryHarness) async throws {
        for (index, name) in names.enumerated() {
            // One request each, so creation times follow this order.
            var fields: [String: FieldValue] = ["keep": .int64(index % 6 == 0 || index % 5 == 0 ? 1 : 0)]
            if index % 4 != 0 { fields["rank"] = .int64(Int64(index % 7)) }  // every fourth has none
            try await harness.save([Record(recordName: name, recordType: "Row", fields: fields)])
        }
    }

    static let kept = names.enumerated().filter { $0.offset % 6 == 0 || $0.offset % 5 == 0 }.map(\.element)
    static let notEqualsZero = #"{"fieldName":"keep","comparator":"NOT_EQUALS","fieldValue":{"value":0}}"#

    @Test(arguments: RecordStoreBackend.allCases)
    func smallPagesInTheDefaultOrderAreCompleteWithAFilterOnlyTheExactCheckApplies(_ backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend) { harness in
            try await Self.seed(harness)
            let byCodePoint = Self.kept.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            for size in [1, 2, 7] {
                let pages = try await harness.allPages(.json("Row", filters: [Self.notEqualsZero], extra: #","resultsLimit":\#(size)"#))
                #expect(pages.flatMap { $0 } == byCodePoint, "pages of \(size)")
                #expect(pages.dropLast().allSatisfy { $0.count == size })
            }
            // Unfiltered, every record once, in code-point order.
            let all = try await harness.allPages(.json("Row", extra: #","resultsLimit":25"#)).flatMap { $0 }
            #expect(all == Self.names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        }
    }

    @Test(arguments: RecordStoreBackend.allCases)
    func pagesByAFieldWithMissingValuesInBothDirections(_ backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend) { harness in
            try await Self.seed(harness)
            // Missing ranks first, then by rank, ties by name in code-point order; descending is the exact reverse.
            let rank = { (name: String) -> Int in
                let index = Self.names.firstIndex(of: name) ?? 0
                return index % 4 == 0 ? -1 : index % 7
            }
            let ascending = Self.kept.sorted { a, b in
                rank(a) != rank(b) ? rank(a) < rank(b) : Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8))
            }
            for (order, expected) in [("true", ascending), ("false", Array(ascending.reversed()))] {
                for size in [1, 4] {
                    let sort = #"{"fieldName":"rank","ascending":\#(order)}"#
                    let pages = try await harness.allPages(.json("Row", filters: [Self.notEqualsZero], sorts: [sort], extra: #","resultsLimit":\#(size)"#))
                    #expect(pages.flatMap { $0 } == expected, "ascending: \(order), pages of \(size)")
                }
            }
        }
    }

    @Test(arguments: RecordStoreBackend.allCases)
    func pagesByCreationTimeDescendingFollowTheSaves(_ backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend) { harness in
            try await Self.seed(harness)
            let sort = #"{"systemFieldName":"createdTimestamp","ascending":false}"#
            let pages = try await harness.allPages(.json("Row", filters: [Self.notEqualsZero], sorts: [sort], extra: #","resultsLimit":3"#))
            #expect(pages.flatMap { $0 } == Array(Self.kept.reversed()))
            let byName = try await harness.allPages(
                .json("Row", sorts: [#"{"systemFieldName":"recordName","ascending":false}"#], extra: #","resultsLimit":11"#))
            #expect(byName.flatMap { $0 } == Self.names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.reversed())
        }
    }
}
