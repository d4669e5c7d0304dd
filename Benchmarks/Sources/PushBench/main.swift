import BenchServer
import BenchSupport
import Foundation
import StratusLogging
import StratusServer
import StratusServerPostgres
import StratusServerSQLite
import StratusTesting
import StratusWire

// PushBench: push latency (committed save → waiting long-poll returns), fan-out to parked polls,
// asset upload/download throughput next to a plain file copy — all against the real server in this process.

func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = CommandLine.arguments.firstIndex(of: "--\(name)"), index + 1 < CommandLine.arguments.count,
        let value = Int(CommandLine.arguments[index + 1])
    else { return fallback }
    return value
}

struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

let notifications = option("notifications", 1_000)
let fanOut = option("clients", 1_000)
let rounds = option("rounds", 3)
let assetMB = option("asset-mb", 10)
let container = "iCloud.com.example.PushBench"
let user = "_00000000000000000000000000000001"

func ms(_ nanoseconds: Double) -> String { String(format: "%.2f ms", nanoseconds / 1e6) }
func path(_ operation: String) -> String { "/database/1/\(container)/development/private/\(operation)" }
func urlPath(_ url: String) -> String {
    guard let range = url.range(of: "://") else { return url }
    let rest = url[range.upperBound...]
    return rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
}

// MARK: Server

// The fake APNs server (Scripts/fake-apns.sh installs it; `make bench` does), unless --no-apns.
let apnsFake: FakeAPNsServer? = CommandLine.arguments.contains("--no-apns") ? nil : try await FakeAPNsServer.start()
defer { apnsFake?.stop() }

let root = FileManager.default.temporaryDirectory.appendingPathComponent("push-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }
let logger = Logger(label: "bench", level: .warning, handler: StreamLogHandler(format: .text))
// `--backend postgres`: the records in a fresh PostgreSQL schema at STRATUS_POSTGRES_URL (dropped at the end).
let postgresURL = ProcessInfo.processInfo.environment["STRATUS_POSTGRES_URL"]
let onPostgres = CommandLine.arguments.contains("postgres")
if onPostgres, postgresURL?.isEmpty ?? true { throw BenchFailure("--backend postgres needs STRATUS_POSTGRES_URL; run under Scripts/test-postgres.sh run …") }
let server = try await InProcessServer.start(root: root, containers: [container, FloodComparison.quietContainer], logger: logger) {
    $0.assets.maximumSize = max(64, assetMB * 2) << 20
    $0.push.pollTimeout = .seconds(60)
    $0.push.maximumBacklog = 10_000
    $0.push.maximumParkedPollsPerUser = 100_000  // the fan-out round parks 1,000 polls of one user
    $0.push.maximumParkedPolls = 100_000
    $0.push.apns.endpoint = apnsFake?.endpoint
} open: { root, logger in
    guard onPostgres, let postgresURL else {
        return try await SQLiteRecordStore.open(path: root.appendingPathComponent("stratus.sqlite").path, logger: logger)
    }
    return try await PostgresRecordStore.openTemporary(url: postgresURL, connections: 8, logger: logger)
}
print("PushBench on \(onPostgres ? "PostgreSQL" : "SQLite"); load average \(loadAverage())")
let store = server.store
let port = server.port
let client = try LoopbackHTTPClient(port: port)

if CommandLine.arguments.contains("--flood-compare") {
    try await FloodComparison.run(
        store: store, client: client, flooded: container,
        settings: (rounds: option("rounds", 20), block: option("block", 20), quiet: option("quiet", 10), flooded: option("flooded", 10_000)))
    print("load average at the end: \(loadAverage())")
    try await server.stop()
    exit(0)
}
if CommandLine.arguments.contains("--flood") {
    try await SubscriptionFlood.run(store: store, client: client, container: container, writes: option("writes", 200))
    try await server.stop()
    exit(0)
}

func post(_ client: LoopbackHTTPClient, _ target: String, _ body: some Encodable) throws -> LoopbackHTTPClient.Response {
    let reply = try client.send("POST", target, body: [UInt8](try WireCoding.encode(body)))
    guard reply.status == 200, !reply.body.contains("serverErrorCode") else { throw BenchFailure("\(target) answered \(reply.status): \(reply.text)") }
    return reply
}

let subscription = Subscription(subscriptionID: "bench", subscriptionType: .query, query: Query(recordType: "Note"), firesOn: [.create])
_ = try post(client, path("subscriptions/modify"), SubscriptionsModify.Request(operations: [.create(subscription)]))
let created = try WireCoding.decode(
    TokensCreate.Response.self,
    from: Data(try post(client, "/device/1/\(container)/development/tokens/create", TokensCreate.Request(apnsEnvironment: .development)).body)
)
_ = try post(
    client, "/device/1/\(container)/development/tokens/register",
    TokensRegister.Request(apnsEnvironment: .development, apnsToken: created.apnsToken)
)
let courierPath = urlPath(created.webcourierURL)

// MARK: 1. Latency: a save while the device's poll is parked → the poll returns

final class Poller: @unchecked Sendable {
    // Safety: `arrivals` and `done` are written by the poller thread and read only after `finished` is signalled.
    let ready = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    var arrivals: [UInt64] = []
    var failure: (any Error)?

    func run(port: UInt16, path: String, count: Int) {
        Thread.detachNewThread { [self] in
            do {
                let client = try LoopbackHTTPClient(port: port)
                for _ in 0..<count {
                    ready.signal()
                    let reply = try client.send("GET", path)
                    guard reply.status == 200, reply.body.contains("\"qry\"") else { throw BenchFailure("poll answered \(reply.status): \(reply.text)") }
                    arrivals.append(monotonicNanoseconds())
                }
            } catch {
                failure = error
            }
            finished.signal()
        }
    }
}

let poller = Poller()
poller.run(port: port, path: courierPath, count: notifications)
var sends: [UInt64] = []
var saveRTT: [Double] = []
for index in 0..<notifications {
    poller.ready.wait()
    usleep(1_000)  // let the poll park
    let body = [UInt8](
        try WireCoding.encode(
            RecordsModify.Request(operations: [.create(Record(recordName: "n\(index)", recordType: "Note", fields: ["v": .int64(Int64(index))]))])))
    let start = monotonicNanoseconds()
    sends.append(start)
    let reply = try client.send("POST", path("records/modify"), body: body)
    saveRTT.append(Double(monotonicNanoseconds() - start))
    guard reply.status == 200, !reply.body.contains("serverErrorCode") else { throw BenchFailure("save answered \(reply.status): \(reply.text)") }
}
poller.finished.wait()
if let failure = poller.failure { throw failure }
let latencies = zip(sends, poller.arrivals).map { Double($1 &- $0) }

// MARK: 1b. APNs: a save → the fake APNs server receives the push (HTTP/2 over TLS on loopback)

var apnsLatencies: [Double]?
if let fake = apnsFake {
    apnsLatencies = try await APNsLatency.run(fake: fake, server: server.service, store: store, client: client, container: container, count: notifications)
}

// MARK: 2. Fan-out: N parked polls woken by one save

var fanOutTimes: [Double] = []
let publicDatabase = DatabaseKey(container: container, environment: .development, scope: .public, owner: DatabaseKey.publicOwner)
for round in 0..<rounds {
    // Each round: a fresh subscriber with 1,000 devices and a public subscription on Note creations.
    let subscriber = String(format: "_fan%029d", round)
    let tokens = (0..<fanOut).map { "fan-\(round)-\($0)" }
    let fanSubscription = Subscription(subscriptionID: "fan", subscriptionType: .query, query: Query(recordType: "Note"), firesOn: [.create])
    try await store.write { tx in
        try tx.putSubscription(StoredSubscription(database: publicDatabase, subscriber: subscriber, subscription: fanSubscription, createdAt: 0))
        for token in tokens {
            try tx.createPushToken(
                PushTokenRow(
                    token: token, container: container, environment: .development, apnsEnvironment: "development", user: subscriber, createdAt: 0,
                    expiresAt: .max)
            )
        }
    }
    let fleet = Fleet()
    try fleet.launch(port: port, targets: tokens.map { "/courier/\($0)" })
    try await Task.sleep(for: .seconds(2))  // every poll parks (they found empty queues)
    let body = [UInt8](try WireCoding.encode(RecordsModify.Request(operations: [.create(Record(recordName: "fan-\(round)", recordType: "Note", fields: [:]))])))
    let start = monotonicNanoseconds()
    let reply = try client.send("POST", "/database/1/\(container)/development/public/records/modify", body: body)
    guard reply.status == 200 else { throw BenchFailure("fan-out save answered \(reply.status)") }
    let replies = try fleet.collect(timeoutSeconds: 60)
    guard replies.allSatisfy({ $0.raw.contains("fan-\(round)") }) else { throw BenchFailure("a fan-out poll missed its notification") }
    fanOutTimes.append(Double((replies.map(\.arrival).max() ?? start) - start))
    // Retire this round's subscriber so the next save does not fan out to its devices too.
    _ = try await store.write { tx in try tx.deleteSubscription(id: "fan", in: publicDatabase, subscriber: subscriber) }
}

// MARK: 3. Assets: upload and download MB/s next to a file copy

let size = assetMB << 20
var uploadRates: [Double] = []
var downloadRates: [Double] = []
var copyRates: [Double] = []
var writeRates: [Double] = []
for round in 0..<rounds {
    var bytes = [UInt8](repeating: 0, count: size)
    for index in stride(from: 0, to: size, by: 4096) { bytes[index] = UInt8(truncatingIfNeeded: index / 4096 &+ round &* 7) }
    let request = AssetsUpload.Request(tokens: [AssetsUpload.Token(recordName: "a\(round)", recordType: "Photo", fieldName: "image")])
    let uploadURL = try WireCoding.decode(AssetsUpload.Response.self, from: Data(try post(client, path("assets/upload"), request).body)).tokens[0].url
    var start = monotonicNanoseconds()
    let uploaded = try client.send("POST", urlPath(uploadURL), body: bytes)
    let uploadTime = Double(monotonicNanoseconds() - start)
    guard uploaded.status == 200 else { throw BenchFailure("upload answered \(uploaded.status): \(uploaded.text)") }
    uploadRates.append(Double(size) / 1_048_576 / (uploadTime / 1e9))
    let asset = try WireCoding.decode(AssetUploadReceipt.self, from: Data(uploaded.body)).singleFile
    let save = RecordsModify.Request(operations: [.create(Record(recordName: "a\(round)", recordType: "Photo", fields: ["image": .asset(asset)]))])
    let saved = try WireCoding.decode(RecordsModify.Response.self, from: Data(try post(client, path("records/modify"), save).body))
    guard let downloadURL = saved.records.first?.record?.fields?["image"]?.assetValue?.downloadURL else { throw BenchFailure("no downloadURL") }
    start = monotonicNanoseconds()
    let downloaded = try client.send("GET", urlPath(downloadURL).replacingOccurrences(of: "${f}", with: "file.bin"))
    let downloadTime = Double(monotonicNanoseconds() - start)
    guard downloaded.status == 200, downloaded.body == bytes else {
        throw BenchFailure("download answered \(downloaded.status) with \(downloaded.body.count) bytes")
    }
    downloadRates.append(Double(size) / 1_048_576 / (downloadTime / 1e9))

    let source = root.appendingPathComponent("copy-source-\(round)")
    start = monotonicNanoseconds()
    try Data(bytes).write(to: source)
    writeRates.append(Double(size) / 1_048_576 / (Double(monotonicNanoseconds() - start) / 1e9))
    start = monotonicNanoseconds()
    try FileManager.default.copyItem(at: source, to: root.appendingPathComponent("copy-target-\(round)"))
    copyRates.append(Double(size) / 1_048_576 / (Double(monotonicNanoseconds() - start) / 1e9))
}

func median(_ values: [Double]) -> Double { percentile(values, 50) }
func ratio(_ value: Double, _ baseline: Double) -> String { String(format: "×%.2f", value / max(baseline, 1)) }
print(
    """

    | measurement | result |
    |---|---|
    | push latency, save sent → parked poll returns, p50 / p99 (\(notifications) notifications) | \(ms(percentile(latencies, 50))) / \(ms(percentile(latencies, 99))) (target p99 ≤ 20 ms) |
    | the save's own round trip, p50 / p99 | \(ms(percentile(saveRTT, 50))) / \(ms(percentile(saveRTT, 99))) |
    | APNs push latency, save sent → fake APNs receives the push, p50 / p99 (\(notifications) notifications) | \(apnsLatencies.map { "\(ms(percentile($0, 50))) / \(ms(percentile($0, 99))) (target p99 ≤ 50 ms)" } ?? "not measured (--no-apns)") |
    | APNs / courier, same run, p50 / p99 | \(apnsLatencies.map { ratio(percentile($0, 50), percentile(latencies, 50)) + " / " + ratio(percentile($0, 99), percentile(latencies, 99)) } ?? "—") |
    | fan-out: \(fanOut) parked polls all answered after one save, median of \(rounds) (min … max) | \(ms(median(fanOutTimes))) (\(ms(fanOutTimes.min() ?? 0)) … \(ms(fanOutTimes.max() ?? 0))) |
    | asset upload \(assetMB) MB (POST, hash, store once), median | \(String(format: "%.0f MB/s", median(uploadRates))) |
    | asset download \(assetMB) MB (GET downloadURL), median | \(String(format: "%.0f MB/s", median(downloadRates))) |
    | baseline: write \(assetMB) MB to a file / copy it (FileManager), median | \(String(format: "%.0f / %.0f MB/s", median(writeRates), median(copyRates))) |
    """)
try await server.stop()

func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
}
