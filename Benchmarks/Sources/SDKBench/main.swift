import BenchServer
import BenchSupport
import Foundation
import StratusClient
import StratusKeyValue
import StratusLogging
import StratusServer
import StratusWire

// SDKBench: the SDK's cost per request next to the same request sent by the loopback client and by a
// bare URLSessionTransport; paging through 100,000 query results; key-value `set` → `didChangeExternally`
// on another device — all against the real server in this process.

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

let requests = option("requests", 2_000)
let queryRecords = option("query-records", 100_000)
let kvChanges = option("kv-changes", 200)
let containerID = "iCloud.com.example.SDKBench"

func us(_ nanoseconds: Double) -> String { String(format: "%.0f µs", nanoseconds / 1e3) }
func ms(_ nanoseconds: Double) -> String { String(format: "%.2f ms", nanoseconds / 1e6) }
func path(_ operation: String) -> String { "/database/1/\(containerID)/development/private/\(operation)" }

// MARK: Server

let root = FileManager.default.temporaryDirectory.appendingPathComponent("sdk-bench-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: root) }
let logger = Logger(label: "bench", level: .warning, handler: StreamLogHandler(format: .text))
let server = try await InProcessServer.start(root: root, containers: [containerID], logger: logger) {
    $0.push.pollTimeout = .seconds(60)
}
let port = server.port
let loopback = try LoopbackHTTPClient(port: port)
let serverURL = server.url

@MainActor func post(_ target: String, _ body: some Encodable) throws -> LoopbackHTTPClient.Response {
    let reply = try loopback.send("POST", target, body: [UInt8](try WireCoding.encode(body)))
    guard reply.status == 200, !reply.body.contains("serverErrorCode") else { throw BenchFailure("\(target) answered \(reply.status): \(reply.text)") }
    return reply
}

func makeContainer() -> StratusClient.Container {
    var clientConfiguration = ClientConfiguration()
    clientConfiguration.requestTimeout = .seconds(60)
    return StratusClient.Container(
        identifier: containerID, environment: .development, serverURL: serverURL, authentication: .none,
        configuration: clientConfiguration)
}

// MARK: 1. Overhead per request: records/lookup of one record

_ = try post(path("zones/modify"), ZonesModify.Request(operations: [.create(ZoneID(zoneName: "Bench"))]))
_ = try post(
    path("records/modify"),
    RecordsModify.Request(
        operations: [.create(StratusWire.Record(recordName: "r1", recordType: "Item", fields: ["title": .string("hello"), "rank": .int64(1)]))],
        zoneID: ZoneID(zoneName: "Bench")))
let lookupBody = try WireCoding.encode(RecordsLookup.Request(records: [RecordsLookup.Item(recordName: "r1")], zoneID: ZoneID(zoneName: "Bench")))
let container = makeContainer()
let database = container.privateCloudDatabase
let recordID = RecordID(recordName: "r1", zoneID: ZoneID(zoneName: "Bench"))
let transport = URLSessionTransport()
#if os(Linux)
let curlTransport = CurlTransport()
#else
let curlTransport = URLSessionTransport()
#endif
let lookupRequest = try container.preparedRequest(
    RecordsLookup.self, RecordsLookup.Request(records: [RecordsLookup.Item(recordName: "r1")], zoneID: ZoneID(zoneName: "Bench")), in: .private)

var loopbackTimes: [Double] = []
var transportTimes: [Double] = []
var curlTimes: [Double] = []
var sdkTimes: [Double] = []
for _ in 0..<50 {  // warm-up
    _ = try await database.record(for: recordID)
    _ = try await transport.send(lookupRequest)
    _ = try await curlTransport.send(lookupRequest)
}
for _ in 0..<requests {
    var start = monotonicNanoseconds()
    let reply = try loopback.send("POST", path("records/lookup"), body: [UInt8](lookupBody))
    loopbackTimes.append(Double(monotonicNanoseconds() - start))
    guard reply.status == 200 else { throw BenchFailure("lookup answered \(reply.status)") }

    start = monotonicNanoseconds()
    let raw = try await transport.send(lookupRequest)
    transportTimes.append(Double(monotonicNanoseconds() - start))
    guard raw.status == 200 else { throw BenchFailure("lookup answered \(raw.status)") }

    start = monotonicNanoseconds()
    let curled = try await curlTransport.send(lookupRequest)
    curlTimes.append(Double(monotonicNanoseconds() - start))
    guard curled.status == 200 else { throw BenchFailure("lookup answered \(curled.status)") }

    start = monotonicNanoseconds()
    let record = try await database.record(for: recordID)
    sdkTimes.append(Double(monotonicNanoseconds() - start))
    guard record["title"] == "hello" else { throw BenchFailure("lookup returned the wrong record") }
}
print("1. records/lookup of one record, \(requests) requests each (interleaved), p50 / p99:")
print("   loopback client (raw socket):      \(us(percentile(loopbackTimes, 50))) / \(us(percentile(loopbackTimes, 99)))")
print("   URLSessionTransport, prepared:     \(us(percentile(transportTimes, 50))) / \(us(percentile(transportTimes, 99)))")
print("   CurlTransport, prepared:           \(us(percentile(curlTimes, 50))) / \(us(percentile(curlTimes, 99)))")
print("   SDK database.record(for:):         \(us(percentile(sdkTimes, 50))) / \(us(percentile(sdkTimes, 99)))")
print(
    "   SDK over its default transport: +\(us(percentile(sdkTimes, 50) - percentile(curlTimes, 50))) p50 (build, encode, decode, Record);"
        + " URLSession over raw socket: +\(us(percentile(transportTimes, 50) - percentile(loopbackTimes, 50)));"
        + " CurlTransport over raw socket: +\(us(percentile(curlTimes, 50) - percentile(loopbackTimes, 50)))")

// MARK: 2. Paging through 100,000 query results

let pageZone = ZoneID(zoneName: "Paging")
_ = try post(path("zones/modify"), ZonesModify.Request(operations: [.create(pageZone)]))
let loadStart = monotonicNanoseconds()
for batch in stride(from: 0, to: queryRecords, by: 200) {
    let operations = (batch..<min(batch + 200, queryRecords)).map { index in
        RecordOperation.create(
            StratusWire.Record(recordName: "q\(index)", recordType: "Item", fields: ["rank": .int64(Int64(index)), "title": .string("item \(index)")]))
    }
    _ = try post(path("records/modify"), RecordsModify.Request(operations: operations, zoneID: pageZone))
}
print("2. loaded \(queryRecords) records in \(ms(Double(monotonicNanoseconds() - loadStart)))")

var rawCount = 0
let rawStart = monotonicNanoseconds()
var marker: ContinuationMarker?
repeat {
    let reply = try post(
        path("records/query"), RecordsQuery.Request(query: Query(recordType: "Item"), zoneID: pageZone, resultsLimit: 200, continuationMarker: marker))
    let page = try WireCoding.decode(RecordsQuery.Response.self, from: Data(reply.body))
    rawCount += page.records.count
    marker = page.continuationMarker
} while marker != nil
let rawPaging = Double(monotonicNanoseconds() - rawStart)

var sdkCount = 0
let sdkStart = monotonicNanoseconds()
for try await _ in database.allRecords(matching: Query(recordType: "Item"), inZoneWith: pageZone) { sdkCount += 1 }
let sdkPaging = Double(monotonicNanoseconds() - sdkStart)
guard rawCount == queryRecords, sdkCount == queryRecords else { throw BenchFailure("paging saw \(rawCount) / \(sdkCount) records") }
print("   loopback client, pages of 200 (decoded): \(ms(rawPaging)) (\(Int(Double(rawCount) / rawPaging * 1e9)) records/s)")
print("   SDK allRecords(matching:):               \(ms(sdkPaging)) (\(Int(Double(sdkCount) / sdkPaging * 1e9)) records/s)")

// MARK: 3. Key-value set → didChangeExternally on another device

var kvConfiguration = KeyValueStore.Configuration()
kvConfiguration.notifications.pollTimeout = .seconds(90)
let phone = try KeyValueStore(container: makeContainer(), databaseURL: nil, configuration: kvConfiguration)
let laptop = try KeyValueStore(container: makeContainer(), databaseURL: nil, configuration: kvConfiguration)
try await phone.synchronizeNow()
try await laptop.synchronizeNow()
try await Task.sleep(for: .seconds(1))  // both courier tokens registered
func measureKeyValueLatency(from phone: KeyValueStore, to laptop: KeyValueStore, count: Int) async throws -> [Double] {
    var iterator = laptop.didChangeExternally.makeAsyncIterator()
    var latencies: [Double] = []
    for index in 0..<count {
        let start = monotonicNanoseconds()
        try phone.set(Int64(index), forKey: "counter")
        while true {
            guard let change = await iterator.next() else { throw BenchFailure("the change stream ended") }
            if change.changedKeys.contains("counter"), laptop.int64(forKey: "counter") == Int64(index) { break }
        }
        latencies.append(Double(monotonicNanoseconds() - start))
    }
    return latencies
}
let kvLatencies = try await measureKeyValueLatency(from: phone, to: laptop, count: kvChanges)
print("3. key-value set on one store → didChangeExternally on another, \(kvChanges) changes, p50 / p99:")
print("   \(ms(percentile(kvLatencies, 50))) / \(ms(percentile(kvLatencies, 99)))")
phone.close()
laptop.close()
try await server.stop()
