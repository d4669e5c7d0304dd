import BenchServer
import BenchSupport
import Foundation
import StratusLogging
import StratusWire
import Synchronization

// BackupBench: `stratus backup` of a data directory holding --records records (default 1,000,000):
// the archive's size and the seconds it takes; and, in the same run, one writer's latency for
// single-record creates before the backup, while it runs, and after it (the server keeps writing
// through WAL while VACUUM INTO reads one snapshot). The backup is the real executable
// (--stratus, default .build/release/stratus), run against the data directory of the server in
// this process.

let recordCount = CommandLineOption.integer("records", default: 1_000_000)
let baselineSeconds = CommandLineOption.integer("baseline-seconds", default: 10)
let stratus: String = {
    guard let index = CommandLine.arguments.firstIndex(of: "--stratus"), index + 1 < CommandLine.arguments.count else {
        return ".build/release/stratus"
    }
    return CommandLine.arguments[index + 1]
}()
let containerID = "iCloud.com.example.BackupBench"
let zone = ZoneID(zoneName: "Bench")
func path(_ operation: String) -> String { "/database/1/\(containerID)/development/private/\(operation)" }
func ms(_ nanoseconds: Double) -> String { String(format: "%.2f ms", nanoseconds / 1e6) }

guard FileManager.default.isExecutableFile(atPath: stratus) else {
    throw BenchmarkFailure("no stratus executable at \(stratus): build it with `swift build -c release --product stratus` or pass --stratus PATH")
}
let root = FileManager.default.temporaryDirectory.appendingPathComponent("backup-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }
let logger = Logger(label: "bench", level: .warning, handler: StreamLogHandler(format: .text))
let server = try await InProcessServer.start(root: root, containers: [containerID], logger: logger)

// MARK: Seed

@Sendable func create(_ names: Range<Int>, prefix: String) -> [UInt8] {
    let operations = names.map { index in
        RecordOperation.create(
            StratusWire.Record(
                recordName: "\(prefix)\(index)", recordType: "Note",
                fields: [
                    "title": .string("note \(index)"), "rank": .int64(Int64(index)),
                    "body": .string(String(repeating: "lorem ipsum ", count: 8)),
                ]))
    }
    return (try? [UInt8](WireCoding.encode(RecordsModify.Request(operations: operations, zoneID: zone)))) ?? []
}

let seeder = try LoopbackHTTPClient(port: server.port)
@Sendable func post(_ client: LoopbackHTTPClient, _ operation: String, _ body: [UInt8]) throws {
    let reply = try client.send("POST", path(operation), body: body)
    guard reply.status == 200, !reply.text.contains("serverErrorCode") else {
        throw BenchmarkFailure("\(operation) answered \(reply.status): \(reply.text.prefix(300))")
    }
}
try post(seeder, "zones/modify", [UInt8](try WireCoding.encode(ZonesModify.Request(operations: [.create(zone)]))))
let seedStart = ContinuousClock.now
for batch in stride(from: 0, to: recordCount, by: 200) {
    try post(seeder, "records/modify", create(batch..<min(batch + 200, recordCount), prefix: "r"))
}
let seeded = ContinuousClock.now - seedStart
let databaseBytes = ["stratus.sqlite", "stratus.sqlite-wal"].reduce(Int64(0)) { total, name in
    total + (((try? FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(name).path))?[.size] as? NSNumber)?.int64Value ?? 0)
}
print("seeded \(recordCount) records in \(seeded) (database and WAL: \(databaseBytes / 1_000_000) MB)")

// MARK: Write latency with and without a backup running

/// One writer's samples: (start, latency) in nanoseconds since the writer began.
final class Samples: Sendable {
    private let samples = Mutex<[(start: Double, latency: Double)]>([])
    private let stop = Mutex(false)
    var stopped: Bool { stop.withLock { $0 } }
    func finish() { stop.withLock { $0 = true } }
    func add(start: Double, latency: Double) { samples.withLock { $0.append((start, latency)) } }
    func latencies(from: Double, to: Double) -> [Double] { samples.withLock { $0.filter { $0.start >= from && $0.start < to }.map(\.latency) } }
}

let samples = Samples()
let origin = ContinuousClock.now
@Sendable func elapsed() -> Double { let (s, a) = (ContinuousClock.now - origin).components; return Double(s) * 1e9 + Double(a) / 1e9 }
let port = server.port
let writer = Thread {
    guard let client = try? LoopbackHTTPClient(port: port) else { return }
    var index = 0
    while !samples.stopped {
        let started = elapsed()
        guard (try? post(client, "records/modify", create(index..<index + 1, prefix: "w"))) != nil else { break }
        samples.add(start: started, latency: elapsed() - started)
        index += 1
    }
}
writer.start()
try await Task.sleep(for: .seconds(baselineSeconds))
let archive = root.appendingPathComponent("backup.tar")
let backupStart = elapsed()
let process = Process()
process.executableURL = URL(fileURLWithPath: stratus)
process.arguments = ["backup", archive.path, "--data-dir", root.path]
try process.run()
process.waitUntilExit()
let backupEnd = elapsed()
guard process.terminationStatus == 0 else { throw BenchmarkFailure("stratus backup exited with \(process.terminationStatus)") }
try await Task.sleep(for: .seconds(baselineSeconds))
samples.finish()
try await Task.sleep(for: .milliseconds(200))
try await server.stop()

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}
let archiveBytes = ((try? FileManager.default.attributesOfItem(atPath: archive.path))?[.size] as? NSNumber)?.int64Value ?? 0
let before = samples.latencies(from: 0, to: backupStart)
let during = samples.latencies(from: backupStart, to: backupEnd)
let after = samples.latencies(from: backupEnd, to: .infinity)
print(
    String(
        format: "backup of %d records: %.1f s, archive %.0f MB (%.0f MB/s)", recordCount, (backupEnd - backupStart) / 1e9,
        Double(archiveBytes) / 1e6, Double(archiveBytes) / 1e6 / ((backupEnd - backupStart) / 1e9)))
for (name, values) in [("before", before), ("during", during), ("after", after)] {
    print("write latency \(name) the backup: \(values.count) writes, p50 \(ms(percentile(values, 0.5))), p99 \(ms(percentile(values, 0.99)))")
}
print(
    String(
        format: "during / before: p50 %.2f×, p99 %.2f×; writes per second %.0f → %.0f",
        percentile(during, 0.5) / percentile(before, 0.5), percentile(during, 0.99) / percentile(before, 0.99),
        Double(before.count) / (backupStart / 1e9), Double(during.count) / ((backupEnd - backupStart) / 1e9)))
