import Foundation
import StratusTesting
import Testing

/// The deterministic simulation of sync (issue 17; Documentation/0018).
///
/// Each seed builds a world in one process — two to four StratusStore + StratusStoreSync devices,
/// one real `CloudKitService` over SQLite files answering in process (``InProcessCloudKitServer``),
/// a simulated clock — and runs a few dozen random steps from a seeded scheduler: app edits of
/// related notes and folders, syncs, forced syncs, relaunches, the network off and on, pushes
/// (delivered, dropped, duplicated, delayed), and faults: requests dropped, answers lost after the
/// commit, requests duplicated, sync tokens expired (by a compacting server, or refused after the
/// zone was made again or the database restored), the server killed and started again from its
/// files, a tight quota or a throttle for some steps, the zone deleted and made again, device
/// clocks off by seconds or an hour. Then every fault is lifted, every device syncs, and
/// ``SimOracle`` checks: all devices hold what the server holds, no duplicates, no deleted note
/// back, no created note gone, no edit lost under three-way merge.
///
/// 1,000 seeds by default. Replay one with `SIM_SEED=42`, a range with `SIM_SEED=0..<5000`
/// (`swift test --filter SyncSimulationTests`); a failure prints the seed's steps, `SIM_LOG=1`
/// prints them for every seed, with every request and its fault.
///
/// `make test` runs it after the suite (`STRATUS_SIMULATION=1`), never retried: a failing seed
/// fails the run and prints how to replay it. `make test-simulation` runs it alone.
@Suite(.enabled(if: SimulationGate.isEnabled, "make test-simulation, STRATUS_SIMULATION=1 or SIM_SEED runs the simulator"))
struct SyncSimulationTests {
    static var seeds: Range<Int> {
        let text = ProcessInfo.processInfo.environment["SIM_SEED"] ?? ""
        if let one = Int(text) { return one..<(one + 1) }
        let bounds = text.components(separatedBy: "..<").compactMap { Int($0) }
        return bounds.count == 2 && bounds[0] < bounds[1] ? bounds[0]..<bounds[1] : 0..<1_000
    }

    /// `SIM_LOG=1` prints every seed's steps and requests.
    static var printsSteps: Bool { ProcessInfo.processInfo.environment["SIM_LOG"] == "1" }

    /// Runs one seed in a scratch directory of its own; returns the failure report, if any.
    static func run(seed: Int) async throws -> (failures: [String], run: SimRun) {
        let scratch = try SyncLifecyclePropertyTests.scratchDirectory(seed: seed)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var run = SimRun(seed: seed, verbose: printsSteps)
        let found: [String]
        do {
            found = try await run.run(directory: scratch)
        } catch {
            found = ["a step threw \(error)"]
        }
        return (found, run)
    }

    @Test func everySeedConverges() async throws {
        let seeds = Self.seeds
        let workers = min(4, seeds.count)
        let failures = try await withThrowingTaskGroup(of: [String].self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var failed: [String] = []
                    for seed in stride(from: seeds.lowerBound + worker, to: seeds.upperBound, by: workers) {
                        let (found, run) = try await Self.run(seed: seed)
                        if Self.printsSteps { print(run.journal.all.joined(separator: "\n")) }
                        if !found.isEmpty {
                            failed.append(
                                (["seed \(seed) failed (replay: SIM_SEED=\(seed) SIM_LOG=1 swift test --skip-build --filter SyncSimulationTests):"] + found + [
                                    "steps:"
                                ] + run.log).joined(separator: "\n  "))
                        }
                    }
                    return failed
                }
            }
            var all: [String] = []
            for try await failed in group { all += failed }
            return all
        }
        let summary = failures.map { $0.split(separator: "\n").prefix(2).joined(separator: " ") }.sorted()
        #expect(
            failures.isEmpty,
            "\(failures.count) of \(seeds.count) seeds failed\n\(summary.joined(separator: "\n"))\n\(failures.prefix(3).joined(separator: "\n"))")
    }

    /// The same seed twice makes the same steps, the same requests and the same faults.
    @Test func aSeedReplaysExactly() async throws {
        let seed = Self.seeds.lowerBound + 7
        let first = try await Self.run(seed: seed)
        let second = try await Self.run(seed: seed)
        #expect(first.run.log == second.run.log)
        #expect(first.run.traces == second.run.traces)
    }
}

/// Whether the simulator runs: asked for with `STRATUS_SIMULATION=1` or a `SIM_SEED`.
enum SimulationGate {
    static var isEnabled: Bool {
        let environment = ProcessInfo.processInfo.environment
        return environment["STRATUS_SIMULATION"] == "1" || environment["SIM_SEED"] != nil
    }
}
