import Foundation
import StratusTesting
import Testing

/// The property behind issue 23: whatever the interleaving of offline edits, network switches,
/// syncs, forced syncs, relaunches and crashes at any request, on two or three devices and under
/// "three-way merge" or "latest change wins", every completed sync leaves the server with what the
/// policy says and the device's store with what the server holds, and all devices converge.
///
/// 500 seeds by default, four at a time, each seed on a server of its own zone (four servers, one
/// seed at a time each, so the servers' manual clocks are driven by one run alone). Under a
/// sanitizer 100: that run looks for races in the same code paths, and at 500 it went on alone for
/// minutes after the rest of the suite had ended. Replay one
/// seed with `STRATUS_LIFECYCLE_SEEDS=42`, or a range with `STRATUS_LIFECYCLE_SEEDS=0..<2000`.
@Suite struct SyncLifecyclePropertyTests {
    static var seeds: Range<Int> {
        let text = ProcessInfo.processInfo.environment["STRATUS_LIFECYCLE_SEEDS"] ?? ""
        if let one = Int(text) { return one..<(one + 1) }
        let bounds = text.components(separatedBy: "..<").compactMap { Int($0) }
        return bounds.count == 2 && bounds[0] < bounds[1] ? bounds[0]..<bounds[1] : 0..<(TestTimeScale.isSlowed ? 100 : 500)
    }

    /// A fresh directory for one seed's stores: in memory (`/dev/shm`) where there is one, so 500
    /// seeds of store files do not wait on the disk; else under the temporary directory.
    static func scratchDirectory(seed: Int) throws -> URL {
        let memory = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        var isDirectory: ObjCBool = false
        let parent =
            FileManager.default.fileExists(atPath: memory.path, isDirectory: &isDirectory) && isDirectory.boolValue
            ? memory : FileManager.default.temporaryDirectory
        let directory = parent.appendingPathComponent("stratus-lifecycle-\(seed)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        return directory
    }

    @Test func everyLifeCycleConvergesAndKeepsThePolicysWinner() async throws {
        let seeds = Self.seeds
        let workers = min(4, seeds.count)
        let failures = try await withThrowingTaskGroup(of: [String].self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var failed: [String] = []
                    try await TestCloudKitServer.withServer(directoryPrefix: "stratus-lifecycle") { server, _ in
                        for seed in stride(from: seeds.lowerBound + worker, to: seeds.upperBound, by: workers) {
                            let scratch = try Self.scratchDirectory(seed: seed)
                            defer { try? FileManager.default.removeItem(at: scratch) }
                            var run = LifecycleRun(seed: seed, server: server)
                            let found: [String]
                            do {
                                found = try await run.run(directory: scratch)
                            } catch {
                                found = ["a step threw \(error)"]
                            }
                            if !found.isEmpty {
                                failed.append((["seed \(seed) failed:"] + found + ["steps:"] + run.log).joined(separator: "\n  "))
                            }
                        }
                    }
                    return failed
                }
            }
            var all: [String] = []
            for try await failed in group { all += failed }
            return all
        }
        #expect(failures.isEmpty, "\(failures.count) of \(seeds.count) seeds failed\n\(failures.prefix(3).joined(separator: "\n"))")
    }
}
