import Foundation
import StratusTesting
import StratusWire
import Testing

/// `kill -9` of a real `stratus serve` under write load loses no acknowledged write and leaves a
/// consistent change feed.
@Suite(.serialized) struct CrashDurabilityTests {
    static let container = "iCloud.com.example.Crash"
    static let zone = "Crash"
    static let batchSize = 5

    @Test func acknowledgedWritesSurviveSIGKILLAndTheFeedStaysConsistent() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-crash")
        defer { directory.remove() }
        let dataDirectory = directory.path("data")
        let created = try await StratusChildProcess.run(["container", "create", Self.container, "--data-dir", dataDirectory])
        #expect(created.contains("created container \(Self.container)"))

        // First life: a zone, a token from before the load, then load and SIGKILL.
        let first = try await StratusChildProcess.serve(dataDirectory: dataDirectory, logPath: directory.path("first.log"))
        defer { first.killHard() }
        var client = LoopbackCloudKitClient(port: first.port, container: Self.container)
        try await client.createZone(Self.zone)
        let tokenBeforeLoad = try await client.changes(zone: Self.zone, token: nil, limit: 10).syncToken

        let acknowledged = AcknowledgedNames()
        let loadClient = client
        let load = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        await LoadScenarios.writeBatches(
                            writer: writer, client: loadClient, zone: Self.zone, batchSize: Self.batchSize, acknowledged: acknowledged
                        )
                    }
                }
                try await group.waitForAll()
            }
        }
        // Kill once enough writes are in (or time is up), while the writers are still going.
        // A busy machine (the whole suite runs in parallel on 2 cores) may need longer to reach 100.
        let deadline = ContinuousClock.now + .seconds(6)
        let hardDeadline = ContinuousClock.now + .seconds(30)
        while acknowledged.count < 1500, ContinuousClock.now < deadline || (acknowledged.count < 100 && ContinuousClock.now < hardDeadline) {
            try await Task.sleep(for: .milliseconds(5))
        }
        first.killHard()
        #expect(first.wasKilled)
        try await load.value
        let survivors = acknowledged.names
        #expect(survivors.count >= 100, "the load should have been acknowledged before the kill")

        // Second life on the same data directory.
        let second = try await StratusChildProcess.serve(dataDirectory: dataDirectory, logPath: directory.path("second.log"))
        defer { second.killHard() }
        client.port = second.port

        // Every acknowledged record is there.
        let names = survivors.sorted()
        var missing: [String] = []
        for start in stride(from: 0, to: names.count, by: 200) {
            let chunk = Array(names[start..<min(start + 200, names.count)])
            let results = try await client.lookup(chunk, zone: Self.zone)
            #expect(results.count == chunk.count)
            for (name, result) in zip(chunk, results) where result.asRecord?.recordName != name {
                missing.append(name)
            }
        }
        #expect(missing.isEmpty, "acknowledged records lost in the crash: \(missing.prefix(10))")

        // The change feed from scratch: each record once, tokens advancing, batches whole.
        let fromScratch = try await Self.readFeed(client, from: nil)
        #expect(Set(fromScratch).count == fromScratch.count, "a record appears twice in the change feed")
        #expect(survivors.isSubset(of: Set(fromScratch)), "acknowledged records missing from the change feed")
        LoadScenarios.expectWholeBatches(fromScratch, batchSize: Self.batchSize)

        // A token from before the crash still works after the restart and sees the same changes.
        let fromOldToken = try await Self.readFeed(client, from: tokenBeforeLoad)
        #expect(fromOldToken == fromScratch)

        // The server keeps working after recovery.
        let after = try await client.modify([WireJSON.create("after-restart")], zone: Self.zone)
        #expect(after.first?.asRecord != nil)
        await second.stop()
    }

    /// Pages a zone's change feed to the end with a small limit, checking tokens advance.
    private static func readFeed(_ client: LoopbackCloudKitClient, from start: SyncToken?) async throws -> [String] {
        let (records, token) = try await client.allChanges(zone: zone, from: start, limit: 50)
        let last = try await client.changes(zone: zone, token: token, limit: 50)
        #expect(last.records.isEmpty && !last.moreComing, "the final token must be at the end of the feed")
        return records.compactMap(\.recordName)
    }
}
