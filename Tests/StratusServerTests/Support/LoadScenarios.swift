import Foundation
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// Record names whose writes the server acknowledged, shared by load tasks.
final class AcknowledgedNames: Sendable {
    private let storage = Mutex<Set<String>>([])

    var count: Int { storage.withLock { $0.count } }
    var names: Set<String> { storage.withLock { $0 } }

    func insert(_ names: [String]) { storage.withLock { $0.formUnion(names) } }

    /// How many acknowledged names start with `prefix`.
    func count(prefix: String) -> Int { storage.withLock { $0.filter { $0.hasPrefix(prefix) }.count } }
}

/// A flag load tasks poll to know when to stop.
final class StopFlag: Sendable {
    private let raised = Mutex(false)

    var isRaised: Bool { raised.withLock { $0 } }

    func raise() { raised.withLock { $0 = true } }
}

/// Load and checks shared by the crash and multi-node tests.
enum LoadScenarios {
    /// Creates atomic batches of `batchSize` records (`w<writer>-b<batch>/r<i>`) until the server
    /// stops answering or `stop` is raised; records the names of every batch whose response
    /// arrived whole and saved every record.
    static func writeBatches(
        writer: Int, client: LoopbackCloudKitClient, zone: String, batchSize: Int, acknowledged: AcknowledgedNames, stop: StopFlag? = nil
    ) async {
        var batch = 0
        while stop?.isRaised != true {
            let names = (0..<batchSize).map { "w\(writer)-b\(batch)/r\($0)" }
            let operations = names.map { WireJSON.create($0, type: "Event", fields: #"{"writer":{"value":\#(writer)},"batch":{"value":\#(batch)}}"#) }
            do {
                let results = try await client.modify(operations, zone: zone)
                let saved = results.compactMap { $0.asRecord?.recordName }
                guard saved == names else { return }
                acknowledged.insert(names)
            } catch {
                return  // the server is gone: this batch was not acknowledged
            }
            batch += 1
        }
    }

    /// Checks that every batch of `names` (`<batch>/r<i>`) has exactly `batchSize` members.
    static func expectWholeBatches(_ names: [String], batchSize: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        var batches: [String: Int] = [:]
        for name in names {
            batches[String(name.prefix { $0 != "/" }), default: 0] += 1
        }
        let partial = batches.filter { $0.value != batchSize }
        #expect(partial.isEmpty, "an atomic batch was committed in part: \(partial.prefix(5))", sourceLocation: sourceLocation)
    }

    /// Sends `count` concurrent updates of `name` carrying the same change `tag`, spread over `clients`; returns every result.
    static func raceUpdates(
        of name: String, tag: String, zone: String, count: Int, clients: [LoopbackCloudKitClient]
    ) async throws
        -> [RecordResult]
    {
        try await withThrowingTaskGroup(of: RecordResult?.self) { group in
            for writer in 0..<count {
                group.addTask {
                    try await clients[writer % clients.count].modify(
                        [WireJSON.update(name, tag: tag, fields: #"{"writer":{"value":\#(writer)}}"#)], zone: zone
                    ).first
                }
            }
            var results: [RecordResult] = []
            for try await result in group { if let result { results.append(result) } }
            return results
        }
    }
}

extension LoopbackCloudKitClient {
    /// Pages a zone's change feed from `token` to its end: the changes in feed order and the final
    /// token; checks that every page with changes moves the token.
    func allChanges(zone: String, from token: SyncToken? = nil, limit: Int = 50) async throws -> (records: [Record], token: SyncToken?) {
        var records: [Record] = []
        var token = token
        for _ in 0..<100_000 {
            let page = try await changes(zone: zone, token: token, limit: limit)
            records += page.records.compactMap(\.asRecord)
            if !page.records.isEmpty {
                #expect(page.syncToken != token, "a page with changes must move the token")
            }
            token = page.syncToken
            if !page.moreComing { break }
        }
        return (records, token)
    }
}

/// A zone's records as a change feed describes them: each live record's change tag.
struct FeedState: Equatable, CustomStringConvertible {
    private(set) var tags: [String: String] = [:]

    /// Applies changes in feed order: a record replaces its earlier state, a deletion removes it.
    mutating func apply(_ records: [Record]) {
        for record in records {
            guard let name = record.recordName else { continue }
            tags[name] = record.isDeleted ? nil : record.recordChangeTag?.rawValue
        }
    }

    mutating func set(_ name: String, tag: String?) { tags[name] = tag }

    var description: String { "\(tags.count) live records" }
}
