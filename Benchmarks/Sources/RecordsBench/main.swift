// Records benchmark: the CloudKit service end to end over HTTP on loopback.
//
// Starts the real server in this process (SQLite store in a temporary directory,
// CloudKitService, the `stratus serve` router, libmicrohttpd on 127.0.0.1:0 with a
// thread pool of 4, log level warning) and drives it with one client — a blocking
// keep-alive HTTP/1.1 client over a POSIX socket (BenchSupport.LoopbackHTTPClient),
// because URLSession adds 0.2–0.3 ms per request on this machine. Each round uses a
// fresh server and store; raw SQLite and raw HTTP round trips are measured in the
// same round, so every figure is reported next to its physical limit. Medians of rounds.
//
//   swift run -c release --package-path Benchmarks RecordsBench [--records 10000] [--rounds 3]
//       [--stalls [--settle S]]   (scenario 6 right after a bulk load, every run timed: QueryStalls)
//       [--batch 200] [--updates 1000] [--clients 8] [--per-client 500] [--query-records 100000]
//       [--queries 30] [--threads 4] [--backend sqlite|sqlite,postgres|postgres] [--pg-nodes 1,3] [--auth web]
//
// `--auth web` runs scenarios 4 and 5 only, with every request signed in (API token and a web auth
// token rotated on every request, as CloudKit JS does), next to open mode in the same run (AuthComparison).
//
// `--backend sqlite,postgres` (PostgreSQL at STRATUS_POSTGRES_URL, e.g. under
// `Scripts/test-postgres.sh run …`) runs scenarios 1, 2, 4, 5 and 5z (a zone per client) on SQLite, on PostgreSQL with one
// node and with several on one schema (`--pg-nodes`, 1 and 3 by default), and breaks PostgreSQL requests down (BackendComparison).
import BenchSupport
import Foundation
import StratusWire

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count, let value = Int(arguments[index + 1]) else { return fallback }
    return value
}
let records = option("records", 10_000)
let rounds = option("rounds", 3)
let batch = option("batch", 200)
let updates = option("updates", 1_000)
let clients = option("clients", 8)
let perClient = option("per-client", 500)
let queryRecords = option("query-records", 100_000)
let queries = option("queries", 30)
let threads = option("threads", 4)
let deltaChanges = min(100, records)

struct Round {
    var healthP50 = 0.0, echoP50 = 0.0
    var creates = 0.0, feed = 0.0, feedSeconds = 0.0, deltaMs = 0.0
    var updateP50 = 0.0, updateP99 = 0.0, concurrent = 0.0
    var sqlite = Baselines.SQLiteFigures(batchInsertsPerSecond: 0, singleInsertsPerSecond: 0, pagedReadsPerSecond: 0)
    var pieces: [String: Double] = [:]
}

func µs(_ value: Double) -> String { value >= 1000 ? String(format: "%.2f ms", value / 1000) : String(format: "%.0f µs", value) }

if let auth = arguments.firstIndex(of: "--auth").flatMap({ $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }) {
    guard auth == "web" else { throw BenchFailure("--auth takes 'web'; got '\(auth)'") }
    print(
        "RecordsBench --auth web: \(rounds) round(s); \(updates) updates; \(clients)×\(perClient) concurrent creates; HTTP thread pool \(threads); \(ProcessInfo.processInfo.activeProcessorCount) cores; load average \(loadAverage())"
    )
    try await AuthComparison.run(.init(updates: updates, clients: clients, perClient: perClient, threads: threads, rounds: rounds))
    exit(0)
}

// With PostgreSQL among the back ends: scenarios 1, 2, 4, 5 and 5z on each (SQLite, PostgreSQL with one
// node and with several), side by side, and where a PostgreSQL request's time goes.
let backends = (arguments.firstIndex(of: "--backend").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil } ?? "sqlite")
    .split(separator: ",").map(String.init)
if arguments.contains("--stalls") {
    // Scenario 6 right after a bulk load, every run timed, on each back end (QueryStalls).
    print("RecordsBench --stalls: \(queries) filtered + sorted queries right after loading \(queryRecords) records; load average \(loadAverage())")
    let settings = QueryStalls.Settings(records: queryRecords, batch: batch, queries: queries, threads: threads, settle: option("settle", 0))
    try await QueryStalls.run(try BackendComparison.configurations(backends), settings: settings)
    print("load average at the end: \(loadAverage())")
    exit(0)
}
if backends != ["sqlite"] {
    let settings = BackendComparison.Settings(
        records: records, batch: batch, updates: updates, clients: clients, perClient: perClient, threads: threads, rounds: rounds,
        queries: queries
    )
    print(
        "RecordsBench --backend \(backends.joined(separator: ",")): \(rounds) round(s); \(ProcessInfo.processInfo.activeProcessorCount) cores; load average \(loadAverage())"
    )
    // `--pg-nodes 1,2`: the PostgreSQL configurations by node count (1 and 3 by default).
    let nodes = (arguments.firstIndex(of: "--pg-nodes").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil } ?? "1,3")
        .split(separator: ",").compactMap { Int($0) }
    try await BackendComparison.run(try BackendComparison.configurations(backends, nodes: nodes), settings: settings)
    print("load average at the end: \(loadAverage())")
    exit(0)
}

if arguments.contains("--breakdown-only") {
    // For profilers: only the in-process pieces, many times.
    for line in try await Breakdown.measure(batch: batch, repeats: option("breakdown-batches", 50)) {
        print("\(line.name): \(String(format: "%.1f", line.microsecondsPerRecord)) µs/record")
    }
    exit(0)
}

let fieldBytes = try WireCoding.encode(Payloads.fields(12_345)).count
print(
    "RecordsBench: \(rounds) round(s); \(records) records of ~\(fieldBytes) bytes of field JSON; batches of \(batch); \(updates) updates; \(clients)×\(perClient) concurrent creates; query over \(queryRecords); HTTP thread pool \(threads); \(ProcessInfo.processInfo.activeProcessorCount) cores; load average \(loadAverage())"
)
print("client: LoopbackHTTPClient (blocking keep-alive HTTP/1.1 over a POSIX socket, TCP_NODELAY)\n")

// Warm-up, untimed: the first requests of a process pay for lazily built runtime metadata and caches.
do {
    let server = try await BenchServer.start(threads: threads)
    let client = try BenchClient(port: server.port)
    try server.createZone("w", client: client)
    let warm = Scenarios(client: client, zone: "w")
    _ = try warm.create(prefix: "w", count: min(records, 2_000), batch: batch)
    _ = try warm.downloadFeed(expecting: min(records, 2_000))
    _ = try warm.conditionalUpdates(name: Payloads.name("w", 0), count: 100)
    await server.stop()
}

var results: [Round] = []
for round in 1...rounds {
    var figures = Round()
    let server = try await BenchServer.start(threads: threads)
    let client = try BenchClient(port: server.port)
    figures.healthP50 = percentile(
        try Baselines.latencies(count: 2_000) {
            guard try client.send("GET", "/health").status == 200 else { throw BenchFailure("/health failed") }
        }, 50)
    let echoBody = try Payloads.updateBody(name: "r-0", tag: "zz", revision: 1, zone: "r")
    figures.echoP50 = percentile(
        try Baselines.latencies(count: 2_000) {
            guard try client.send("POST", "/bench/echo", body: echoBody).status == 200 else { throw BenchFailure("/bench/echo failed") }
        }, 50)

    try server.createZone("r", client: client)
    let scenarios = Scenarios(client: client, zone: "r")
    figures.creates = try scenarios.create(prefix: "r", count: records, batch: batch)
    let feed = try scenarios.downloadFeed(expecting: records)
    figures.feed = feed.recordsPerSecond
    figures.feedSeconds = feed.seconds
    figures.deltaMs = try scenarios.delta(prefix: "r", count: records, changes: deltaChanges, token: feed.token)
    let latencies = try scenarios.conditionalUpdates(name: Payloads.name("r", 1), count: updates)
    figures.updateP50 = percentile(latencies, 50)
    figures.updateP99 = percentile(latencies, 99)
    figures.concurrent = try Scenarios.concurrentCreates(ports: [server.port], zones: ["r"], clients: clients, perClient: perClient, round: round)
    await server.stop()
    figures.sqlite = try Baselines.sqlite(count: records, batch: batch, singles: clients * perClient)
    for line in try await Breakdown.measure(batch: batch, repeats: option("breakdown-batches", 10)) {
        figures.pieces[line.name] = line.microsecondsPerRecord
    }

    print(
        "round \(round): RTT /health \(µs(figures.healthP50)), echo \(µs(figures.echoP50)) | creates \(grouped(figures.creates))/s "
            + "(raw SQLite \(grouped(figures.sqlite.batchInsertsPerSecond))/s) | feed \(grouped(figures.feed))/s "
            + "(raw \(grouped(figures.sqlite.pagedReadsPerSecond))/s) | delta \(String(format: "%.2f", figures.deltaMs)) ms | "
            + "update p50 \(µs(figures.updateP50)) p99 \(µs(figures.updateP99)) | \(clients) clients \(grouped(figures.concurrent))/s "
            + "(raw 1-row tx \(grouped(figures.sqlite.singleInsertsPerSecond))/s)"
    )
    results.append(figures)
}

// Scenario 6: one store with `queryRecords` records, loaded once.
print("\nloading \(grouped(Double(queryRecords))) records for the query scenario…")
let queryServer = try await BenchServer.start(threads: threads)
let queryClient = try BenchClient(port: queryServer.port)
try queryServer.createZone("q", client: queryClient)
let loader = Scenarios(client: queryClient, zone: "q")
let loadRate = try loader.create(prefix: "q", count: queryRecords, batch: batch)
print("loaded at \(grouped(loadRate)) records/s (batches of \(batch), store growing to \(grouped(Double(queryRecords))))")
let filtered = try Payloads.filteredQueryBody(zone: "q")
let typeOnly = try Payloads.typeQueryBody(zone: "q")
var filteredP50: [Double] = []
var typeOnlyP50: [Double] = []
var filterRefusal: String?
let queryHealth = try LoopbackHTTPClient(port: queryServer.port)
var queryRTT: [Double] = []
for round in 1...rounds {
    queryRTT.append(percentile(try Baselines.latencies(count: 1_000) { _ = try queryHealth.send("GET", "/health") }, 50))
    switch try loader.query(filtered, count: queries, expecting: min(200, queryRecords)) {
    case .refused(let reason): filterRefusal = reason
    case .latencies(let samples): filteredP50.append(percentile(samples, 50))
    }
    guard case .latencies(let samples) = try loader.query(typeOnly, count: queries, expecting: min(200, queryRecords)) else {
        throw BenchFailure("the server refused the type-only query")
    }
    typeOnlyP50.append(percentile(samples, 50))
    print("query round \(round): filtered+sorted \(filteredP50.last.map(µs) ?? "refused") | type-only \(µs(typeOnlyP50.last ?? 0))")
}
let urlSessionP50 = try await Baselines.urlSessionHealth(port: queryServer.port, count: 500)
let ourHealth = percentile(try Baselines.latencies(count: 500) { _ = try queryHealth.send("GET", "/health") }, 50)
await queryServer.stop()

// The table.
let finished = results
func med(_ key: (Round) -> Double) -> Double { median(finished.map(key)) }
let rtt = med(\.healthP50)
let echo = med(\.echoP50)
func verdict(_ met: Bool) -> String { met ? "met" : "**missed**" }
func share(_ value: Double, _ limit: Double) -> String { String(format: "%.0f%%", value / limit * 100) }
func times(_ value: Double, _ limit: Double) -> String { String(format: "%.1f×", value / limit) }

print("\n| scenario | median | target | vs. physical limit (same run) |")
print("|---|---|---|---|")
let creates = med(\.creates)
let rawBatch = med(\.sqlite.batchInsertsPerSecond)
print(
    "| 1. create \(grouped(Double(records))) records, batches of \(batch) | \(grouped(creates)) records/s | ≥ 25,000/s: \(verdict(creates >= 25_000)) | \(share(creates, rawBatch)) of raw SQLite batch inserts (\(grouped(rawBatch)) rows/s) |"
)
let feedRate = med(\.feed)
let rawRead = med(\.sqlite.pagedReadsPerSecond)
print(
    "| 2. download \(grouped(Double(records))) via records/changes (200/page) | \(grouped(feedRate)) records/s, \(String(format: "%.0f", med(\.feedSeconds) * 1000)) ms total | — | \(share(feedRate, rawRead)) of raw SQLite paged reads (\(grouped(rawRead)) rows/s) |"
)
let delta = med(\.deltaMs)
print("| 3. delta of \(deltaChanges) changes with the token from (2) | \(String(format: "%.2f", delta)) ms | — | \(times(delta * 1000, rtt)) HTTP round trip |")
let updateP50 = med(\.updateP50)
print(
    "| 4. \(grouped(Double(updates))) sequential conditional updates, p50 | \(µs(updateP50)) (p99 \(µs(med(\.updateP99)))) | p50 ≤ 0.5 ms: \(verdict(updateP50 <= 500)) | \(times(updateP50, rtt)) GET /health RTT, \(times(updateP50, echo)) async POST echo |"
)
let concurrent = med(\.concurrent)
let rawSingle = med(\.sqlite.singleInsertsPerSecond)
print(
    "| 5. \(clients) clients × \(perClient) creates, 1 record per request | \(grouped(concurrent)) records/s | ≥ 7,000/s: \(verdict(concurrent >= 7_000)) | \(share(concurrent, rawSingle)) of raw SQLite 1-row transactions (\(grouped(rawSingle)) rows/s) |"
)
let queryRTTMedian = median(queryRTT)
if let reason = filterRefusal, filteredP50.isEmpty {
    print(
        "| 6. filtered + sorted query over \(grouped(Double(queryRecords))), 200 results | skipped: server does not support filters yet | p50 ≤ 10 ms | server said: \"\(reason.prefix(90))\" |"
    )
} else {
    let p50 = median(filteredP50)
    print(
        "| 6. filtered + sorted query over \(grouped(Double(queryRecords))), 200 results, p50 | \(µs(p50)) | p50 ≤ 10 ms: \(verdict(p50 <= 10_000)) | \(times(p50, queryRTTMedian)) HTTP round trip |"
    )
}
let typeP50 = median(typeOnlyP50)
print(
    "| 6′. type-only query over \(grouped(Double(queryRecords))), 200 results, p50 (stand-in) | \(µs(typeP50)) | (p50 ≤ 10 ms) | \(times(typeP50, queryRTTMedian)) HTTP round trip |"
)
print("| baseline: GET /health (immediate handler) RTT p50 | \(µs(rtt)) | — | — |")
print("| baseline: POST /bench/echo (async handler) RTT p50 | \(µs(echo)) | — | — |")
print("| comparison: GET /health via URLSession p50 | \(µs(urlSessionP50)) | — | \(times(urlSessionP50, ourHealth)) this client (\(µs(ourHealth))) |")

// Where the time goes, measured piece by piece in this process.
func piece(_ name: String) -> Double { finished.compactMap { $0.pieces[name] }.min() ?? .nan }
print(
    "\nWhere a record's time goes (µs per record; least-disturbed figures: each piece measured alone in-process without HTTP, fastest of \(option("breakdown-batches", 10)) batches of \(batch) × \(rounds) rounds; end to end = best round):\n"
)
print("| piece | µs/record | share of end-to-end |")
print("|---|---|---|")
let createTotal = 1e6 / (finished.map(\.creates).max() ?? creates)
let feedTotal = 1e6 / (finished.map(\.feed).max() ?? feedRate)
let bestRawBatch = finished.map(\.sqlite.batchInsertsPerSecond).max() ?? rawBatch
let bestRawRead = finished.map(\.sqlite.pagedReadsPerSecond).max() ?? rawRead
print("| **1. batched create, end to end over HTTP** | \(String(format: "%.1f", createTotal)) | 100% |")
for name in ["request decode", "store write", "response encode"] {
    print("| \(name) | \(String(format: "%.1f", piece(name))) | \(share(piece(name), createTotal)) |")
}
let createRest = createTotal - piece("request decode") - piece("store write") - piece("response encode")
print(
    "| rest: service logic (validation, schema admission, presenter), HTTP, scheduling | \(String(format: "%.1f", createRest)) | \(share(createRest, createTotal)) |"
)
print("| raw SQLite insert (baseline) | \(String(format: "%.1f", 1e6 / bestRawBatch)) | \(share(1e6 / bestRawBatch, createTotal)) |")
print("| **2. change feed, end to end over HTTP** | \(String(format: "%.1f", feedTotal)) | 100% |")
for name in ["store page read", "feed response encode"] {
    print("| \(name) | \(String(format: "%.1f", piece(name))) | \(share(piece(name), feedTotal)) |")
}
let feedRest = feedTotal - piece("store page read") - piece("feed response encode")
print("| rest: presenter, token, HTTP, scheduling | \(String(format: "%.1f", feedRest)) | \(share(feedRest, feedTotal)) |")
print("| raw SQLite paged read (baseline) | \(String(format: "%.1f", 1e6 / bestRawRead)) | \(share(1e6 / bestRawRead, feedTotal)) |")
print(
    "| comparison: the create response built as a JSONValue tree by hand, then serialized (same bytes) | \(String(format: "%.1f", piece("response encode, direct JSONValue (prototype)"))) | vs \(String(format: "%.1f", piece("response encode"))) via WireCoding.encode (direct writer) |"
)
print(
    "| reference: WireCoding encode / decode of one record's fields, a bare [String: FieldValue] (encode direct, decode Codable) | \(String(format: "%.1f / %.1f", piece("Codable field encode"), piece("Codable field decode"))) | — |"
)

print("\npeer reference (PocketBase): ~11,000 records/s in batches, ~1,900 single updates/s, ~3,600 creates/s from 8 clients")
print("load average at the end: \(loadAverage())")

func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
}
