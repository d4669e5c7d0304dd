import Foundation
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// Many clients at once over real sockets: change tags and `create` stay exact, and change feeds
/// read during writes miss and repeat nothing.
@Suite struct RaceTests {
    /// One result per client, by client number.
    private func concurrently(
        _ clients: Int, _ body: @escaping @Sendable (Int) async throws -> RecordResult?
    ) async throws -> [Int: RecordResult] {
        try await withThrowingTaskGroup(of: (Int, RecordResult?).self) { group in
            for client in 0..<clients {
                group.addTask { (client, try await body(client)) }
            }
            var results: [Int: RecordResult] = [:]
            for try await (client, result) in group {
                results[client] = result
            }
            return results
        }
    }

    @Test(arguments: RecordStoreBackend.allCases)
    func updatesWithTheSameChangeTagLetExactlyOneWin(backend: RecordStoreBackend) async throws {
        try await withLoopbackServer(backend: backend) { _, client in
            try await client.createZone("Race")
            let created = try await client.modify([WireJSON.create("shared", fields: #"{"writer":{"value":-1}}"#)], zone: "Race")
            let tag = try #require(created.first?.asRecord?.recordChangeTag).rawValue

            let results = try await concurrently(20) { writer in
                let fields = #"{"writer":{"value":\#(writer)},"mark\#(writer)":{"value":"written by \#(writer)"}}"#
                return try await client.modify([WireJSON.update("shared", tag: tag, fields: fields)], zone: "Race").first
            }

            #expect(results.count == 20)
            let winners = results.filter { $0.value.asRecord != nil }
            #expect(winners.count == 1, "exactly one update with the shared tag succeeds")
            let losers = results.compactMap { $0.value.asError }
            #expect(losers.count == 19)
            #expect(losers.allSatisfy { $0.serverErrorCode == .conflict && $0.recordName == "shared" })
            let (winner, winnerResult) = try #require(winners.first)
            let written = try #require(winnerResult.asRecord)

            let final = try #require(try await client.lookup(["shared"], zone: "Race").first?.asRecord)
            #expect(final.recordChangeTag == written.recordChangeTag)
            #expect(final.recordChangeTag?.rawValue != tag)
            #expect(final.fields?["writer"] == .int64(Int64(winner)))
            #expect(final.fields?["mark\(winner)"] == .string("written by \(winner)"))
            let marks = final.fields?.keys.filter { $0.hasPrefix("mark") } ?? []
            #expect(marks == ["mark\(winner)"], "no loser's field leaked into the record")
        }
    }

    /// Read, add one, write with the tag read, retry on CONFLICT: every increment lands.
    @Test(arguments: RecordStoreBackend.allCases)
    func readModifyWriteLoopsLoseNoIncrement(backend: RecordStoreBackend) async throws {
        try await withLoopbackServer(backend: backend) { _, client in
            try await client.createZone("Race")
            _ = try await client.modify([WireJSON.create("counter", fields: #"{"count":{"value":0}}"#)], zone: "Race")

            let clients = 12
            let increments = try await concurrently(clients) { _ in
                for _ in 1...500 {
                    let current = try #require(try await client.lookup(["counter"], zone: "Race").first?.asRecord)
                    guard case .int64(let count) = current.fields?["count"], let tag = current.recordChangeTag else {
                        Issue.record("counter has no count or tag: \(current)")
                        return nil
                    }
                    let result = try await client.modify(
                        [WireJSON.update("counter", tag: tag.rawValue, fields: #"{"count":{"value":\#(count + 1)}}"#)], zone: "Race"
                    ).first
                    if result?.asRecord != nil { return result }
                    #expect(result?.asError?.serverErrorCode == .conflict)
                }
                Issue.record("a client never got its increment in")
                return nil
            }
            #expect(increments.count == clients)
            let final = try #require(try await client.lookup(["counter"], zone: "Race").first?.asRecord)
            #expect(final.fields?["count"] == .int64(Int64(clients)))
        }
    }

    @Test(arguments: RecordStoreBackend.allCases)
    func createsOfTheSameNameMakeOneRecord(backend: RecordStoreBackend) async throws {
        try await withLoopbackServer(backend: backend) { _, client in
            try await client.createZone("Race")
            let results = try await concurrently(15) { writer in
                try await client.modify([WireJSON.create("solo", fields: #"{"writer":{"value":\#(writer)}}"#)], zone: "Race").first
            }

            let winners = results.filter { $0.value.asRecord != nil }
            #expect(winners.count == 1)
            let losers = results.compactMap { $0.value.asError }
            #expect(losers.count == 14)
            #expect(losers.allSatisfy { $0.serverErrorCode == .exists && $0.recordName == "solo" })
            let (winner, written) = try #require(winners.first)

            let final = try #require(try await client.lookup(["solo"], zone: "Race").first?.asRecord)
            #expect(final.fields?["writer"] == .int64(Int64(winner)))
            #expect(final.recordChangeTag == written.asRecord?.recordChangeTag)
            let feed = try await client.changes(zone: "Race", token: nil, limit: 200)
            #expect(feed.records.compactMap { $0.asRecord?.recordName } == ["solo"], "one record, once, in the change feed")
        }
    }

    /// Writers create and update records while a reader pages the change feed with a small
    /// `resultsLimit`: no version arrives twice, and replaying the pages in order gives the final state.
    @Test(arguments: RecordStoreBackend.allCases)
    func changeFeedPagedDuringWritesHasNoGapOrDuplicate(backend: RecordStoreBackend) async throws {
        try await withLoopbackServer(backend: backend) { _, client in
            try await client.createZone("Feed")
            let writersDone = Flag()
            let writers = 4
            let batches = 8
            let batchSize = 5

            async let feed: [Record] = {
                var seen: [Record] = []
                var token: SyncToken?
                while true {
                    let done = writersDone.isSet
                    let page = try await client.changes(zone: "Feed", token: token, limit: 7)
                    #expect(page.records.count <= 7)
                    seen += page.records.compactMap(\.asRecord)
                    #expect(page.records.allSatisfy { $0.asError == nil })
                    token = page.syncToken
                    if done, !page.moreComing { return seen }
                    if !page.moreComing { try await Task.sleep(for: .milliseconds(2)) }
                }
            }()

            let acknowledged = try await withThrowingTaskGroup(of: [String: String].self) { group in
                for writer in 0..<writers {
                    group.addTask {
                        var tags: [String: String] = [:]
                        for batch in 0..<batches {
                            let names = (0..<batchSize).map { "w\(writer)-b\(batch)-r\($0)" }
                            let saved = try await client.modify(
                                names.map { WireJSON.create($0, fields: #"{"batch":{"value":\#(batch)}}"#) }, zone: "Feed"
                            )
                            for result in saved {
                                let record = try #require(result.asRecord, "create failed: \(result)")
                                tags[try #require(record.recordName)] = record.recordChangeTag?.rawValue
                            }
                            // Move an earlier record forward in the feed.
                            let earlier = "w\(writer)-b\(batch / 2)-r\(batch % batchSize)"
                            let updated = try await client.modify(
                                [WireJSON.update(earlier, tag: try #require(tags[earlier]), fields: #"{"touched":{"value":\#(batch)}}"#)],
                                zone: "Feed"
                            )
                            tags[earlier] = try #require(updated.first?.asRecord?.recordChangeTag?.rawValue, "update failed: \(updated)")
                        }
                        return tags
                    }
                }
                var all: [String: String] = [:]
                for try await tags in group { all.merge(tags) { _, new in new } }
                return all
            }
            writersDone.set()
            let seen = try await feed

            #expect(acknowledged.count == writers * batches * batchSize)
            let versions = seen.map { "\($0.recordName ?? "?")@\($0.recordChangeTag?.rawValue ?? "?")" }
            #expect(Set(versions).count == versions.count, "a version arrived twice")
            var replayed: [String: String] = [:]
            for record in seen {
                replayed[record.recordName ?? "?"] = record.recordChangeTag?.rawValue
            }
            let stale = acknowledged.keys.sorted().filter { replayed[$0] != acknowledged[$0] }
            #expect(stale.isEmpty, "replaying the feed must give every record at its last acknowledged version; wrong: \(stale.prefix(5))")
            #expect(replayed.count == acknowledged.count)

            // A fresh read from scratch sees each record exactly once.
            var fresh: [String] = []
            var token: SyncToken?
            repeat {
                let page = try await client.changes(zone: "Feed", token: token, limit: 9)
                fresh += page.records.compactMap { $0.asRecord?.recordName }
                token = page.syncToken
                if !page.moreComing { break }
            } while true
            #expect(fresh.count == acknowledged.count)
            let missing = acknowledged.keys.sorted().filter { !fresh.contains($0) }
            #expect(missing.isEmpty, "missing from a fresh read: \(missing.prefix(5))")
        }
    }
}

/// A flag one task sets and others read.
private final class Flag: Sendable {
    private let value = Mutex(false)

    var isSet: Bool { value.withLock { $0 } }

    func set() { value.withLock { $0 = true } }
}
