import BenchSupport
import Foundation
import StratusClient
import StratusStore
import StratusStoreSync
import StratusWire
import Synchronization

// SyncBench: StratusStoreSync end to end against the real server in this process — initial sync of
// 10,000 related entities to a fresh device (with --initial N also of N notes seeded through the SDK;
// --max 0 runs that alone), the latency of one change from device A to device B by push, and the cost
// of an incremental sync when 1 of N entities changed, N = 1k, 10k, 100k.

func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = CommandLine.arguments.firstIndex(of: "--\(name)"), index + 1 < CommandLine.arguments.count,
        let value = Int(CommandLine.arguments[index + 1])
    else { return fallback }
    return value
}

let maximum = option("max", 100_000)
let latencySamples = option("latency-samples", 100)
let incrementalRounds = option("rounds", 5)
let chunk = option("chunk", 5_000)
let initialSize = option("initial", 0)
/// `--split 1`: A's captures run paused (history → outbox only), then `resume()` uploads, each timed with its
/// CPU, and the requests of each are counted (the growth's notes/s then includes neither pause nor resume).
let split = option("split", 0) != 0
func ms(_ nanoseconds: Double) -> String { String(format: "%.1f ms", nanoseconds / 1e6) }
func seconds(_ nanoseconds: Double) -> String { String(format: "%.2f s", nanoseconds / 1e9) }

let world = try await BenchWorld()
defer { world.remove() }
let a = try await world.device("A", push: false)
let b = try await world.device("B", push: false)
var notes = 0

/// Adds notes on A (one folder per 100 notes), uploads them, and brings B up to date.
@MainActor func grow(to target: Int) async throws {
    let start = notes
    var next = start
    let uploadStart = monotonicNanoseconds()
    var capturing = 0.0
    var captureCPU = 0.0
    while next < target {
        let end = min(target, next + chunk)
        let range = next..<end
        try await a.edit { context in
            var folder: ManagedObject?
            for index in range {
                if folder == nil || index % 100 == 0 {
                    folder = context.insert(entity: "Folder")
                    folder?.setValue("Folder \(index / 100)", forKey: "name")
                }
                let note = context.insert(entity: "Note")
                note.setValue("Note \(index)", forKey: "title")
                note.setValue("Body of note \(index), a few words long.", forKey: "body")
                note.setValue(index, forKey: "rank")
                note.setValue(folder, forKey: "folder")
            }
        }
        let captureStart = monotonicNanoseconds()
        let cpuStart = processCPUSeconds()
        if split {
            try await splitCapture(of: range.count)
        } else {
            try await a.sync.captureLocalChanges()
        }
        capturing += Double(monotonicNanoseconds() - captureStart)
        captureCPU += processCPUSeconds() - cpuStart
        next = end
    }
    let uploaded = Double(monotonicNanoseconds() - uploadStart)
    let rate = Double(target - start) / (capturing / 1e9)
    let fetchStart = monotonicNanoseconds()
    try await b.sync.sync()
    let fetched = Double(monotonicNanoseconds() - fetchStart)
    notes = target
    let onB = try await b.count()
    guard onB == target else { throw BenchFailure("B has \(onB) notes, expected \(target)") }
    if split { try await sdkBaseline(notes: target - start) }
    print(
        "   grew to \(grouped(Double(target))) notes: A saved + uploaded \(grouped(Double(target - start))) in \(seconds(uploaded)) "
            + "(capture + upload \(seconds(capturing)), CPU \(String(format: "%.2f", captureCPU)) s, \(grouped(rate)) notes/s), B fetched + applied them in \(seconds(fetched))"
    )
}

/// A capture in two timed steps: paused, the capture only queues (store history → outbox); `resume()`
/// then uploads the outbox (and fetches A's own changes back, which the split also times by the SDK).
@MainActor func splitCapture(of count: Int) async throws {
    _ = world.transport.take()
    await a.sync.controller.pause()
    var wall = monotonicNanoseconds()
    var cpu = processCPUSeconds()
    try await a.sync.captureLocalChanges()
    let captureWall = Double(monotonicNanoseconds() - wall)
    let captureCPU = processCPUSeconds() - cpu
    let queuedRequests = world.transport.take()
    wall = monotonicNanoseconds()
    cpu = processCPUSeconds()
    try await a.sync.controller.resume()
    let uploadWall = Double(monotonicNanoseconds() - wall)
    let uploadCPU = processCPUSeconds() - cpu
    let requests = world.transport.take()
    func perNote(_ seconds: Double) -> String { String(format: "%.0f µs", seconds * 1e6 / Double(count)) }
    let modify = requests["records/modify"] ?? CountingTransport.Tally()
    let changes = requests["changes/zone"] ?? CountingTransport.Tally()
    print(
        "     split, \(count) notes: capture while paused \(seconds(captureWall)) (CPU \(perNote(captureCPU))/note, \(queuedRequests.values.reduce(0) { $0 + $1.requests }) requests); "
            + "resume() \(seconds(uploadWall)) (CPU \(perNote(uploadCPU))/note): \(modify.requests) records/modify, "
            + "\(grouped(Double(modify.sentBytes) / Double(max(modify.requests, 1)))) B sent and \(grouped(Double(modify.receivedBytes) / Double(max(modify.requests, 1)))) B received each, "
            + "\(ms(Double(modify.nanoseconds) / Double(max(modify.requests, 1)))) each; \(changes.requests) changes/zone (\(ms(Double(changes.nanoseconds)))); "
            + "others \(requests.filter { $0.key != "records/modify" && $0.key != "changes/zone" }.map { "\($0.key) \($0.value.requests)" }.sorted())")
}

/// The limit of the upload as this process makes it: the same number of notes (and a folder per 100)
/// written by the SDK alone, in requests of 200 through the same transport to the same server.
@MainActor func sdkBaseline(notes count: Int) async throws {
    _ = world.transport.take()
    let wall = monotonicNanoseconds()
    let cpu = processCPUSeconds()
    try await world.seed(zoneName: "Baseline\(notes)", notes: count)
    let elapsed = Double(monotonicNanoseconds() - wall)
    let used = processCPUSeconds() - cpu
    let modify = world.transport.take()["records/modify"] ?? CountingTransport.Tally()
    print(
        "     baseline, the SDK alone writing \(grouped(Double(count))) notes (+ folders) in \(modify.requests) records/modify: \(seconds(elapsed)), "
            + "\(grouped(Double(count) / (elapsed / 1e9))) notes/s, CPU \(String(format: "%.0f µs", used * 1e6 / Double(count)))/note")
}

/// One note changed on A, then B's sync(): B's cost does not depend on how many notes there are.
@MainActor func incremental() async throws {
    var editTimes: [Double] = []
    var aTimes: [Double] = []
    var captureTimes: [Double] = []
    var bTimes: [Double] = []
    var rawTimes: [Double] = []
    let database = world.cloud().privateCloudDatabase
    let zone = ZoneID(zoneName: "StratusSync")
    var token = try await database.allRecordZoneChanges(inZoneWith: zone, since: nil).changeToken
    for round in 0..<incrementalRounds {
        let title = "Edited \(notes) \(round)"
        let rank = Int64((round * 7_919) % notes)
        var start = monotonicNanoseconds()
        try await a.edit { context in
            var request = FetchRequest(entityName: "Note", predicate: PredicateKey<Int64>("rank") == rank)
            request.fetchLimit = 1
            try context.fetch(request).first?.setValue(title, forKey: "title")
        }
        editTimes.append(Double(monotonicNanoseconds() - start))
        start = monotonicNanoseconds()
        try await a.sync.captureLocalChanges()
        aTimes.append(Double(monotonicNanoseconds() - start))
        // Baseline: the same delta read with the SDK alone.
        start = monotonicNanoseconds()
        let delta = try await database.allRecordZoneChanges(inZoneWith: zone, since: token)
        rawTimes.append(Double(monotonicNanoseconds() - start))
        token = delta.changeToken
        start = monotonicNanoseconds()
        try await b.sync.captureLocalChanges()
        captureTimes.append(Double(monotonicNanoseconds() - start))
        start = monotonicNanoseconds()
        try await b.sync.controller.sync()
        bTimes.append(Double(monotonicNanoseconds() - start))
        guard try await b.count(where: PredicateKey<String>("title") == title) == 1 else { throw BenchFailure("B missed \(title)") }
    }
    print(
        "   N = \(grouped(Double(notes))): A: store save \(ms(median(editTimes))), capture + upload \(ms(median(aTimes))); "
            + "B: capture (nothing to send) \(ms(median(captureTimes))), fetch + apply \(ms(median(bTimes))); "
            + "SDK delta fetch alone \(ms(median(rawTimes))) (medians of \(incrementalRounds))")
}

/// A fresh device's initial sync of `total` notes (and a folder per 100) written to a zone of their
/// own through the SDK: start() fetches the whole zone and applies it; baseline: the SDK's fetch alone.
@MainActor func initialSync(of total: Int) async throws {
    let zoneName = "Initial\(total)"
    let seedStart = monotonicNanoseconds()
    try await world.seed(zoneName: zoneName, notes: total)
    let seeded = Double(monotonicNanoseconds() - seedStart)
    let start = monotonicNanoseconds()
    let cpuStart = processCPUSeconds()
    let fresh = try await world.device("I\(total)", push: false, zoneName: zoneName)
    let initial = Double(monotonicNanoseconds() - start)
    let cpu = processCPUSeconds() - cpuStart
    let count = try await fresh.count()
    guard count == total else { throw BenchFailure("the fresh device has \(count) notes, expected \(total)") }
    let rawStart = monotonicNanoseconds()
    let rawCPUStart = processCPUSeconds()
    let feed = try await world.cloud().privateCloudDatabase.allRecordZoneChanges(inZoneWith: ZoneID(zoneName: zoneName), since: nil)
    let raw = Double(monotonicNanoseconds() - rawStart)
    let rawCPU = processCPUSeconds() - rawCPUStart
    let folders = try await fresh.count("Folder")
    print(
        "   initial sync of \(grouped(Double(count + folders))) entities (\(grouped(Double(count))) notes → \(folders) folders, seeded through the SDK in "
            + "\(seconds(seeded))) to a fresh device: \(seconds(initial)), CPU \(String(format: "%.2f", cpu)) s (target ≤ 8 s); the SDK fetching the same "
            + "\(grouped(Double(try feed.modifications().count))) records alone: \(seconds(raw)), CPU \(String(format: "%.2f", rawCPU)) s")
    try await fresh.sync.stop()
}

print("SyncBench: StratusStoreSync against the server in this process (SQLite, loopback)")
if initialSize > 0 {
    print("0. initial sync of \(grouped(Double(initialSize))) notes seeded through the SDK (--initial)")
    try await initialSync(of: initialSize)
}
if maximum == 0 {  // the initial sync alone
    world.remove()
    exit(0)
}

// MARK: 1. Latency A → B by push, and incremental cost at 1,000

print("1. incremental sync with 1 of N notes changed")
try await grow(to: min(1_000, maximum))
try await incremental()

print("2. one change on A visible on B by push (\(latencySamples) samples; B never calls sync)")
let listener = try await world.device("L", push: true)
try await listener.sync.sync()
// The listener's root saves, time-stamped as they happen: the poll below reads no store until one comes.
let saveTimes = Mutex<[UInt64]>([])
let saveWatcher = Task {
    for await notification in listener.store.rootContext.notifications where notification.kind == .didSave {
        let now = monotonicNanoseconds()
        saveTimes.withLock { $0.append(now) }
    }
}
var latencies: [Double] = []
for sample in 0..<latencySamples {
    let title = "Pushed \(sample)"
    let rank = Int64(sample % notes)
    var seen = saveTimes.withLock { $0.count }
    let start = monotonicNanoseconds()
    try await a.edit { context in
        var request = FetchRequest(entityName: "Note", predicate: PredicateKey<Int64>("rank") == rank)
        request.fetchLimit = 1
        try context.fetch(request).first?.setValue(title, forKey: "title")
    }
    let deadline = start + 10_000_000_000
    var arrived: UInt64?
    while arrived == nil {
        guard monotonicNanoseconds() < deadline else { throw BenchFailure("\(title) did not reach L within 10 s") }
        let saves = saveTimes.withLock { $0 }
        if saves.count > seen {
            seen = saves.count
            if try await listener.count(where: PredicateKey<String>("title") == title) == 1 { arrived = saves[saves.count - 1] }
        } else {
            try await Task.sleep(for: .microseconds(200))
        }
    }
    latencies.append(Double((arrived ?? start) - start))
}
saveWatcher.cancel()
print("   A's store save → B's store has it: p50 \(ms(percentile(latencies, 50))), p99 \(ms(percentile(latencies, 99))) (target p99 ≤ 200 ms)")
try await listener.sync.stop()
try await b.sync.sync()  // catch B up with the pushed edits before the incremental figures

if maximum >= 10_000 {
    print("3. 10,000 notes in 100 folders")
    try await grow(to: 10_000)
    try await incremental()
    // A fresh device: start() uploads nothing, fetches the whole zone and applies it.
    let start = monotonicNanoseconds()
    let fresh = try await world.device("C", push: false)
    let initial = Double(monotonicNanoseconds() - start)
    let count = try await fresh.count()
    guard count == notes else { throw BenchFailure("C has \(count) notes, expected \(notes)") }
    let rawStart = monotonicNanoseconds()
    let feed = try await world.cloud().privateCloudDatabase.allRecordZoneChanges(inZoneWith: ZoneID(zoneName: "StratusSync"), since: nil)
    let raw = Double(monotonicNanoseconds() - rawStart)
    let folders = try await fresh.count("Folder")
    print(
        "   initial sync of \(grouped(Double(count + folders))) entities (\(grouped(Double(count))) notes → \(folders) folders) to a fresh device: "
            + "\(seconds(initial)) (target ≤ 10 s); the SDK fetching the same \(grouped(Double(try feed.modifications().count))) records alone: \(seconds(raw))"
    )
    try await fresh.sync.stop()
}

if maximum >= 100_000 {
    print("4. 100,000 notes")
    try await grow(to: 100_000)
    try await incremental()
}
try await a.sync.stop()
try await b.sync.stop()
