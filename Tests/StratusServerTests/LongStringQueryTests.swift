import Foundation
@testable import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Strings longer than PostgreSQL's B-tree entry (~2,700 bytes) and longer than the 1 KiB prefix its
/// field index keeps: a record holding one is saved, and every comparator still keeps exactly the
/// records whose whole string passes — on both back ends.
@Suite struct LongStringQueryTests {
    /// "x" then letters from a fixed pseudo-random sequence: text PostgreSQL cannot compress into a
    /// B-tree entry (a repeated letter it can); `noise(n)` is a prefix of `noise(m)` for n < m.
    static func noise(_ count: Int) -> String {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var letters = "x"
        for _ in 1..<count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            letters.append(Character(Unicode.Scalar(UInt8(97 + (state >> 33) % 26))))
        }
        return letters
    }

    static let x1500 = noise(1_500)
    /// A 4-byte character across the 1,024-byte prefix boundary.
    static let emoji = String(repeating: "y", count: 1_022) + "😀" + "tail"
    static let bodies: [String: String] = [
        "a": x1500 + "a",
        "b": x1500 + "b",
        "c": noise(5_000) + "c",
        "d": "short",
        "e": emoji,
        "f": String(repeating: "é", count: 700) + "z",
    ]

    /// UTF-8 byte order, as CloudKit and both back ends compare strings.
    static func less(_ a: String, _ b: String) -> Bool { Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) }

    /// Each filter with the predicate it stands for.
    static let cases: [(comparator: String, value: String, keeps: @Sendable (String) -> Bool)] = [
        ("EQUALS", x1500 + "a", { $0 == x1500 + "a" }),
        ("EQUALS", x1500 + "z", { $0 == x1500 + "z" }),
        ("EQUALS", emoji, { $0 == emoji }),
        ("LESS_THAN", x1500 + "b", { less($0, x1500 + "b") }),
        ("LESS_THAN_OR_EQUALS", x1500 + "b", { !less(x1500 + "b", $0) }),
        ("GREATER_THAN", x1500 + "a", { less(x1500 + "a", $0) }),
        ("GREATER_THAN_OR_EQUALS", x1500 + "a", { !less($0, x1500 + "a") }),
        ("GREATER_THAN", noise(1_024), { less(noise(1_024), $0) }),
        ("GREATER_THAN", String(repeating: "y", count: 1_022) + "a", { less(String(repeating: "y", count: 1_022) + "a", $0) }),
        ("LESS_THAN", String(repeating: "y", count: 1_022) + "😀" + "s", { less($0, String(repeating: "y", count: 1_022) + "😀" + "s") }),
        ("BEGINS_WITH", x1500, { $0.hasPrefix(x1500) }),
        ("BEGINS_WITH", x1500 + "b", { $0.hasPrefix(x1500 + "b") }),
        ("BEGINS_WITH", String(repeating: "é", count: 600), { $0.hasPrefix(String(repeating: "é", count: 600)) }),
    ]

    static func filter(_ comparator: String, _ value: String) -> String {
        #"{"fieldName":"body","comparator":"\#(comparator)","fieldValue":{"value":"\#(value)"}}"#
    }

    static func records() -> [Record] {
        bodies.keys.sorted().map { name in
            Record(
                recordName: name, recordType: "Note",
                fields: ["body": .string(bodies[name] ?? ""), "tags": .stringList([bodies[name] ?? "", "s"])])
        }
    }

    @Test(arguments: RecordStoreBackend.allCases)
    func everyComparatorKeepsExactlyTheMatchingLongStrings(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend) { harness in
            let saved = try await harness.save(Self.records())
            #expect(saved.compactMap(\.recordName) == Self.bodies.keys.sorted())
            for test in Self.cases {
                let expected = Self.bodies.filter { test.keeps($0.value) }.keys.sorted()
                let names = try await harness.names(.json("Note", filters: [Self.filter(test.comparator, test.value)]))
                #expect(names.sorted() == expected, "\(test.comparator) \(test.value.prefix(12))… (\(test.value.utf8.count) bytes)")
            }
            let among = #"{"fieldName":"body","comparator":"IN","fieldValue":{"value":["\#(Self.x1500)b","nope"],"type":"STRING_LIST"}}"#
            #expect(try await harness.names(.json("Note", filters: [among])) == ["b"])
            let member = #"{"fieldName":"tags","comparator":"LIST_CONTAINS","fieldValue":{"value":"\#(Self.emoji)"}}"#
            #expect(try await harness.names(.json("Note", filters: [member])) == ["e"])
        }
    }

    /// Sorted by the long field, a query pages through every record exactly once, in order wherever
    /// the values differ within their first kilobyte.
    @Test(arguments: RecordStoreBackend.allCases)
    func aSortByALongFieldPagesThroughEveryRecordOnce(backend: RecordStoreBackend) async throws {
        try await QueryHarness.with(backend) { harness in
            _ = try await harness.save(Self.records())
            let pages = try await harness.allPages(
                .json("Note", sorts: [#"{"fieldName":"body","ascending":true}"#], extra: #","resultsLimit":2"#))
            let names = pages.flatMap { $0 }
            #expect(names.sorted() == Self.bodies.keys.sorted())
            let position = Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
            // "a", "b", "c" agree on their first kilobyte; every other pair is ordered by value.
            for (p, q) in [("a", "e"), ("d", "a"), ("e", "f"), ("d", "f"), ("c", "e")] {
                #expect((position[p] ?? 0) < (position[q] ?? 0), "\(p) before \(q)")
            }
        }
    }
}
