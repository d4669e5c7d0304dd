// Local object store benchmark: StratusStore next to raw SQLite doing the same work in the same run.
//
// Scenarios (medians of rounds; each round uses fresh files in a temporary directory):
//   1. insert and save N objects (a background context of the root → disk) vs raw prepared
//      inserts of the same rows in one transaction; with persistent history on (the default) and off;
//   2. fetch 10% of N with a predicate and a sort, p50 over many fetches (fresh context each time)
//      vs the same SELECT through a prepared statement;
//   3. a child → view → root save of 100 changed objects, p50 (saveChain) vs raw UPDATEs by key in one transaction;
//   4. memory held by N faulted objects (object(with:) for N IDs) and by N loaded objects: RSS growth in a
//      fresh child process (the benchmark re-runs itself with --memory-child).
//
//   swift run -c release --package-path Benchmarks StoreBench [--objects 100000] [--rounds 5] [--fetches 20] [--saves 30]
//       [--no-memory]
import Foundation
import Glibc
import StratusSQLite
import StratusStore

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count, let value = Int(arguments[index + 1])
    else { return fallback }
    return value
}
let objects = option("objects", 100_000)
let rounds = option("rounds", 5)
let fetches = option("fetches", 20)
let saves = option("saves", 30)
let fetchWidth = objects / 10

// MARK: Helpers

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
/// CPU seconds used by the process (user + system, all threads): unlike wall time, it does not grow while the
/// work waits for a core on a loaded machine. The store's work hands off between its queues, never in parallel.
func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Wall and CPU seconds of a piece of work.
struct Cost {
    var wall: Double
    var cpu: Double
}

func measure(_ body: () throws -> Void) rethrows -> Cost {
    let start = now()
    let cpu = cpuSeconds()
    try body()
    return Cost(wall: seconds(since: start), cpu: cpuSeconds() - cpu)
}

func measure(_ body: () async throws -> Void) async rethrows -> Cost {
    let start = now()
    let cpu = cpuSeconds()
    try await body()
    return Cost(wall: seconds(since: start), cpu: cpuSeconds() - cpu)
}
func seconds(since start: UInt64) -> Double { Double(now() - start) / 1e9 }
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted.count.isMultiple(of: 2) ? (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2 : sorted[sorted.count / 2]
}
func ms(_ value: Double) -> String { String(format: "%.2f ms", value * 1000) }
/// The resident set size. Memory is measured in a fresh child process (`--memory-child`), whose heap grows
/// with what it allocates, rather than after rounds whose freed memory would be reused without showing.
func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let digits = line.split(separator: " ").compactMap { Int($0) }
        return (digits.first ?? 0) * 1024
    }
    return 0
}
func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
}

let model = try ObjectModel(
    version: "1",
    entities: [
        EntityDescription(
            "Item",
            attributes: [
                AttributeDescription("name", .string),
                AttributeDescription("rank", .integer64),
                AttributeDescription("score", .double),
                AttributeDescription("created", .date),
            ],
            indexes: [["rank"]])
    ])

/// The values of item `index`: rank is a permutation of 0..<objects, so a range of ranks selects a known count.
func values(_ index: Int) -> (String, Int64, Double, Date) {
    let rank = Int64((index &* 7_919) % objects)
    return ("item \(index) " + String(repeating: "n", count: 24), rank, Double(index) * 0.5, Date(timeIntervalSince1970: 1_700_000_000 + Double(index)))
}

func makeDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("storebench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func openContainer(in directory: URL, history: Bool) async throws -> PersistentContainer {
    let container = PersistentContainer(
        name: "Bench", model: model, url: directory.appendingPathComponent("store.sqlite"), recordsHistory: history)
    try await container.loadPersistentStores()
    return container
}

// MARK: Raw SQLite

func rawDatabase(in directory: URL) throws -> SQLiteDatabasePool {
    // The same settings as the store's: WAL, synchronous NORMAL, 256 MiB memory-mapped.
    var configuration = SQLiteConfiguration(path: directory.appendingPathComponent("raw.sqlite").path)
    configuration.mmapSize = 256 << 20
    let pool = try SQLiteDatabasePool(configuration: configuration)
    try pool.writeSync { db in
        try db.execute(
            sql: "CREATE TABLE Item (Z_PK INTEGER PRIMARY KEY, name TEXT, rank INTEGER, score REAL, created REAL, Z_OPT INTEGER NOT NULL DEFAULT 1)")
        try db.execute(sql: "CREATE INDEX Item_rank ON Item (rank)")
    }
    return pool
}

func rawInsert(_ pool: SQLiteDatabasePool) throws -> Cost {
    try measure {
        try pool.writeSync { db in
            for index in 0..<objects {
                let (name, rank, score, created) = values(index)
                try db.execute(
                    "INSERT INTO Item (Z_PK, name, rank, score, created, Z_OPT) VALUES (?, ?, ?, ?, ?, 1)",
                    binding: Int64(index + 1), name, rank, score, created.timeIntervalSince1970)
            }
        }
    }
}

struct RawItem {
    var key: Int64, name: String, rank: Int64, score: Double, created: Double
}

func rawFetch(_ pool: SQLiteDatabasePool) throws -> Cost {
    var rows: [RawItem] = []
    let cost = try measure {
        rows = try pool.readSync { db in
            try db.fetchAll(
                "SELECT Z_PK, name, rank, score, created FROM Item WHERE rank >= ? AND rank < ? ORDER BY score DESC",
                [Int64(objects / 2), Int64(objects / 2 + fetchWidth)]
            ) { row in RawItem(key: try row[0], name: try row[1], rank: try row[2], score: try row[3], created: try row[4]) }
        }
    }
    precondition(rows.count == fetchWidth, "raw fetch found \(rows.count) rows")
    return cost
}

func rawUpdate(_ pool: SQLiteDatabasePool, round: Int) throws -> Cost {
    try measure {
        try pool.writeSync { db in
            for key in 1...100 {
                try db.execute("UPDATE Item SET score = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?", binding: Double(round), Int64(key))
            }
        }
    }
}

// MARK: StratusStore

/// CPU seconds of the three phases of the last store insert: building the objects, the child's save into the root, the root's save.
nonisolated(unsafe) var insertPhases: [Double] = []

func storeInsert(_ container: PersistentContainer) async throws -> Cost {
    let context = container.newBackgroundContext(parent: .rootContext)
    var phases: [Double] = []
    let cost = try await measure {
        phases = try await context.perform { context in
            let start = cpuSeconds()
            for index in 0..<objects {
                let (name, rank, score, created) = values(index)
                let item = context.insert(entity: "Item")
                item.setValue(name, forKey: "name")
                item.setValue(rank, forKey: "rank")
                item.setValue(score, forKey: "score")
                item.setValue(created, forKey: "created")
            }
            let built = cpuSeconds()
            try context.save()
            return [built - start, cpuSeconds() - built]
        }
        let rootStart = cpuSeconds()
        try await container.rootContext.perform { context in try context.save() }
        phases.append(cpuSeconds() - rootStart)
    }
    insertPhases = phases
    await context.perform { context in context.reset() }
    await container.rootContext.perform { context in context.reset() }
    return cost
}

let fetchRequest = FetchRequest(
    entityName: "Item",
    predicate: PredicateKey<Int64>("rank") >= Int64(objects / 2) && PredicateKey<Int64>("rank") < Int64(objects / 2 + fetchWidth),
    sortDescriptors: [.descending("score")])

func storeFetch(_ container: PersistentContainer) async throws -> Cost {
    let context = container.newBackgroundContext(parent: .rootContext)
    var count = 0
    let cost = try await measure { count = try await context.perform { context in try context.fetch(fetchRequest).count } }
    precondition(count == fetchWidth, "store fetch found \(count) objects")
    return cost
}

func storeChainSave(_ container: PersistentContainer, ids: [ObjectID], round: Int) async throws -> Cost {
    let child = container.newBackgroundContext()
    await child.perform { context in
        for id in ids {
            _ = context.object(with: id).value(forKey: "score")
        }
    }
    return try await measure {
        await child.perform { context in
            for id in ids {
                context.object(with: id).setValue(Double(round), forKey: "score")
            }
        }
        try await child.saveChain()
    }
}

// MARK: Memory child

if let index = arguments.firstIndex(of: "--memory-child"), index + 1 < arguments.count {
    let container = PersistentContainer(
        name: "Memory", model: model, url: URL(fileURLWithPath: arguments[index + 1]).appendingPathComponent("store.sqlite"),
        recordsHistory: false)
    try await container.loadPersistentStores()
    let allIDs = try await container.newBackgroundContext(parent: .rootContext).perform { context in
        try context.fetchObjectIDs(FetchRequest(entityName: "Item"))
    }
    let faults = container.newBackgroundContext(parent: .rootContext)
    let before = residentBytes()
    let registered = await faults.perform { context in
        for id in allIDs { _ = context.object(with: id) }
        return context.registeredObjects.count
    }
    let afterFaults = residentBytes()
    let loaded = container.newBackgroundContext(parent: .rootContext)
    let count = try await loaded.perform { context in try context.fetch(FetchRequest(entityName: "Item")).count }
    let afterLoaded = residentBytes()
    print(Double(afterFaults - before) / Double(registered), Double(afterLoaded - afterFaults) / Double(count))
    _ = (faults, loaded)
    exit(0)
}

// MARK: Run

print(
    "StoreBench: \(rounds) round(s); \(objects) objects of 4 attributes (~70 bytes); fetch \(fetchWidth) with predicate + sort, "
        + "\(fetches) fetches/round; \(saves) chain saves/round; \(ProcessInfo.processInfo.activeProcessorCount) cores; "
        + "load average \(loadAverage())\n")

var rawInserts: [Cost] = [], storeInserts: [Cost] = [], storeInsertsNoHistory: [Cost] = []
var rawFetches: [Cost] = [], storeFetches: [Cost] = []
var rawUpdates: [Cost] = [], chainSaves: [Cost] = []
var faultBytes: [Double] = [], loadedBytes: [Double] = []

for round in 1...rounds {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let raw = try rawDatabase(in: directory)
    rawInserts.append(try rawInsert(raw))

    let withoutHistory = try await openContainer(in: directory.appendingPathComponent("nohistory", isDirectory: true).creatingDirectory(), history: false)
    storeInsertsNoHistory.append(try await storeInsert(withoutHistory))
    try withoutHistory.close()

    let container = try await openContainer(in: directory, history: true)
    storeInserts.append(try await storeInsert(container))

    for _ in 0..<fetches {
        rawFetches.append(try rawFetch(raw))
        storeFetches.append(try await storeFetch(container))
    }

    let ids = try await container.newBackgroundContext(parent: .rootContext).perform { context in
        try context.fetchObjectIDs(FetchRequest(entityName: "Item", fetchLimit: 100))
    }
    for save in 0..<saves {
        rawUpdates.append(try rawUpdate(raw, round: save))
        chainSaves.append(try await storeChainSave(container, ids: ids, round: save))
    }

    try container.close()
    try raw.close()
    print(
        "round \(round): insert \(ms(storeInserts.last?.wall ?? 0)) (cpu \(ms(storeInserts.last?.cpu ?? 0)); no history "
            + "\(ms(storeInsertsNoHistory.last?.wall ?? 0))) vs raw \(ms(rawInserts.last?.wall ?? 0)) (cpu \(ms(rawInserts.last?.cpu ?? 0))); "
            + "insert CPU by phase: build \(ms(insertPhases.first ?? 0)), child save \(ms(insertPhases.dropFirst().first ?? 0)), "
            + "root save \(ms(insertPhases.last ?? 0)); "
            + "fetch p50 \(ms(median(storeFetches.suffix(fetches).map(\.wall)))) (cpu \(ms(median(storeFetches.suffix(fetches).map(\.cpu)))))"
            + " vs raw \(ms(median(rawFetches.suffix(fetches).map(\.wall)))) (cpu \(ms(median(rawFetches.suffix(fetches).map(\.cpu))))); "
            + "chain save p50 \(ms(median(chainSaves.suffix(saves).map(\.wall)))) (cpu \(ms(median(chainSaves.suffix(saves).map(\.cpu)))))"
            + " vs raw \(ms(median(rawUpdates.suffix(saves).map(\.wall)))) (cpu \(ms(median(rawUpdates.suffix(saves).map(\.cpu))))))")
}

// Memory: a store of N objects, measured by fresh child processes.
if !arguments.contains("--no-memory") {
    let directory = try makeDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let container = try await openContainer(in: directory, history: false)
    _ = try await storeInsert(container)
    try container.close()
    for _ in 0..<rounds {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        child.arguments = ["--memory-child", directory.path, "--objects", "\(objects)"]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        let numbers = text.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard numbers.count == 2 else { fatalError("memory child printed \(text)") }
        faultBytes.append(numbers[0])
        loadedBytes.append(numbers[1])
    }
}

/// The median over rounds of each round's ratio to its own baseline: steadier than a ratio of medians under load.
func ratio(_ costs: [Cost], _ baselines: [Cost], _ key: KeyPath<Cost, Double>) -> Double {
    median(zip(costs, baselines).map { $0[keyPath: key] / $1[keyPath: key] })
}
let insertRatio = ratio(storeInserts, rawInserts, \.wall)
let insertCPURatio = ratio(storeInserts, rawInserts, \.cpu)
let fetchP50 = median(storeFetches.map(\.wall))
let fetchCPU = median(storeFetches.map(\.cpu))
print("\n| scenario | StratusStore (median) | raw SQLite, same run | ratio (median of rounds) | target |")
print("|---|---|---|---|---|")
print(
    "| insert and save \(objects) objects, history on | \(ms(median(storeInserts.map(\.wall)))) wall, "
        + "\(ms(median(storeInserts.map(\.cpu)))) CPU | \(ms(median(rawInserts.map(\.wall)))) wall, "
        + "\(ms(median(rawInserts.map(\.cpu)))) CPU | " + String(format: "%.2f× wall, %.2f× CPU", insertRatio, insertCPURatio)
        + " | ≤ 3×: \(insertRatio <= 3 ? "met" : "**missed**") |")
print(
    "| insert and save \(objects) objects, history off | \(ms(median(storeInsertsNoHistory.map(\.wall)))) wall, "
        + "\(ms(median(storeInsertsNoHistory.map(\.cpu)))) CPU | (as above) | "
        + String(format: "%.2f× wall, %.2f× CPU", ratio(storeInsertsNoHistory, rawInserts, \.wall), ratio(storeInsertsNoHistory, rawInserts, \.cpu))
        + " | ≤ 3× |")
print(
    "| fetch \(fetchWidth) of \(objects), predicate + sort, p50 | \(ms(fetchP50)) wall, \(ms(fetchCPU)) CPU | "
        + "\(ms(median(rawFetches.map(\.wall)))) wall, \(ms(median(rawFetches.map(\.cpu)))) CPU | "
        + String(format: "%.2f× wall, %.2f× CPU", fetchP50 / median(rawFetches.map(\.wall)), fetchCPU / median(rawFetches.map(\.cpu)))
        + " | p50 ≤ 20 ms: \(fetchP50 <= 0.020 ? "met" : "**missed**") wall, \(fetchCPU <= 0.020 ? "met" : "**missed**") CPU |")
print(
    "| child → view → root save of 100 changed objects, p50 | \(ms(median(chainSaves.map(\.wall)))) wall, "
        + "\(ms(median(chainSaves.map(\.cpu)))) CPU | \(ms(median(rawUpdates.map(\.wall)))) wall, "
        + "\(ms(median(rawUpdates.map(\.cpu)))) CPU | "
        + String(
            format: "%.1f× wall, %.1f× CPU", median(chainSaves.map(\.wall)) / median(rawUpdates.map(\.wall)),
            median(chainSaves.map(\.cpu)) / median(rawUpdates.map(\.cpu))) + " | — |")
if !faultBytes.isEmpty {
    print("| memory per faulted object (\(objects) faults, RSS growth) | \(Int(median(faultBytes))) bytes | — | — | — |")
    print("| memory per loaded object (\(objects) fetched, RSS growth) | \(Int(median(loadedBytes))) bytes | — | — | — |")
}

extension URL {
    func creatingDirectory() throws -> URL {
        try FileManager.default.createDirectory(at: self, withIntermediateDirectories: true)
        return self
    }
}
