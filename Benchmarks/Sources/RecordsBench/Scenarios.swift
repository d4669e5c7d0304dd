import BenchSupport
import Foundation
import StratusWire
import Synchronization

/// The six measured scenarios. Every one drives the server through ``LoopbackHTTPClient`` (``BenchClient``):
/// request bodies are encoded with `WireCoding` before the clock starts where they do not
/// depend on a previous reply; replies are checked cheaply while timed (status, a byte scan
/// for `serverErrorCode`, the change tag or sync token) and decoded in full afterwards.
struct Scenarios {
    let client: BenchClient
    let zone: String

    // MARK: 1. Batched creates

    /// Creates `count` records `prefix-0…` in batches of `batch`; returns records/s.
    func create(prefix: String, count: Int, batch: Int) throws -> Double {
        let bodies = try stride(from: 0, to: count, by: batch).map {
            try Payloads.createBody(prefix: prefix, indices: $0..<min($0 + batch, count), zone: zone)
        }
        var replies: [LoopbackHTTPClient.Response] = []
        replies.reserveCapacity(bodies.count)
        let start = monotonicNanoseconds()
        for body in bodies {
            replies.append(try client.send("POST", BenchServer.path("records/modify"), body: body))
        }
        let rate = Double(count) / seconds(since: start)
        var saved = 0
        for reply in replies {
            guard reply.status == 200 else { throw BenchFailure("records/modify answered \(reply.status): \(reply.text.prefix(300))") }
            for result in try WireCoding.decode(RecordsModify.Response.self, from: Data(reply.body)).records {
                guard case .record = result else { throw BenchFailure("a create failed: \(result)") }
                saved += 1
            }
        }
        guard saved == count else { throw BenchFailure("created \(saved) of \(count) records") }
        return rate
    }

    // MARK: 2. Change feed

    struct Feed {
        var recordsPerSecond: Double
        var seconds: Double
        var token: String
    }

    /// Downloads the whole zone through `records/changes` (resultsLimit 200, following moreComing).
    func downloadFeed(expecting count: Int) throws -> Feed {
        var pages: [LoopbackHTTPClient.Response] = []
        var token: String?
        let start = monotonicNanoseconds()
        while true {
            let reply = try client.send("POST", BenchServer.path("records/changes"), body: try Payloads.changesBody(zone: zone, token: token))
            guard reply.status == 200 else { throw BenchFailure("records/changes answered \(reply.status): \(reply.text.prefix(300))") }
            token = reply.body.jsonString(after: "syncToken", last: true)
            pages.append(reply)
            if !reply.body.contains(#""moreComing":true"#) { break }
        }
        let elapsed = seconds(since: start)
        var names = Set<String>()
        for page in pages {
            let response = try WireCoding.decode(RecordsChanges.Response.self, from: Data(page.body))
            for case .record(let record) in response.records { names.insert(record.recordName ?? "") }
        }
        guard names.count == count, let token else { throw BenchFailure("the change feed returned \(names.count) of \(count) records") }
        return Feed(recordsPerSecond: Double(count) / elapsed, seconds: elapsed, token: token)
    }

    // MARK: 3. Delta

    /// Changes 100 records in one request (untimed), then times fetching the delta since `token`; returns ms.
    func delta(prefix: String, count: Int, changes: Int, token: String) throws -> Double {
        let indices = (0..<changes).map { ($0 * 97) % count }
        let change = try client.send(
            "POST", BenchServer.path("records/modify"), body: try Payloads.forceUpdateBody(prefix: prefix, indices: indices, revision: 1, zone: zone))
        guard change.status == 200, !change.body.contains("serverErrorCode") else { throw BenchFailure("the 100 changes failed: \(change.text.prefix(300))") }
        let body = try Payloads.changesBody(zone: zone, token: token)
        let start = monotonicNanoseconds()
        let reply = try client.send("POST", BenchServer.path("records/changes"), body: body)
        let elapsed = seconds(since: start)
        let response = try WireCoding.decode(RecordsChanges.Response.self, from: Data(reply.body))
        guard reply.status == 200, response.records.count == Set(indices).count, !response.moreComing else {
            throw BenchFailure("the delta has \(response.records.count) records, expected \(Set(indices).count)")
        }
        return elapsed * 1000
    }

    // MARK: 4. Sequential conditional updates

    /// `count` single-record `update`s of one record, each with the tag the previous reply returned; latencies in µs.
    func conditionalUpdates(name: String, count: Int) throws -> [Double] {
        let lookup = try WireCoding.encode(RecordsLookup.Request(records: [.init(recordName: name)], zoneID: ZoneID(zoneName: zone)))
        let found = try client.send("POST", BenchServer.path("records/lookup"), body: [UInt8](lookup))
        guard var tag = found.body.jsonString(after: "recordChangeTag") else { throw BenchFailure("lookup of \(name) failed: \(found.text.prefix(300))") }
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for revision in 0..<count {
            let body = try Payloads.updateBody(name: name, tag: tag, revision: revision + 2, zone: zone)
            let start = monotonicNanoseconds()
            let reply = try client.send("POST", BenchServer.path("records/modify"), body: body)
            samples.append(Double(monotonicNanoseconds() - start) / 1000)
            guard reply.status == 200, !reply.body.contains("serverErrorCode"), let next = reply.body.jsonString(after: "recordChangeTag") else {
                throw BenchFailure("update \(revision) failed: \(reply.text.prefix(300))")
            }
            tag = next
        }
        return samples
    }

    // MARK: 5. Concurrent creates

    /// `clients` threads, each with its own connection (to `ports` in turn: nodes of one cluster),
    /// each creating `perClient` records one per request; records/s.
    /// Client `i` writes zone `zones[i % zones.count]` through node `ports[i % ports.count]`: one zone for
    /// scenario 5, a zone per client for 5z (writers of different zones, which must not wait for each other).
    /// With `sessions` (one per client), each client is signed in with its own session (web auth, tokens rotated).
    static func concurrentCreates(
        ports: [UInt16], zones: [String], clients: Int, perClient: Int, round: Int, sessions: [WebAuthAccount.Session] = []
    ) throws -> Double {
        let elapsed = try parallel(threads: clients) { thread -> (BenchClient, [[UInt8]]) in
            let bodies = try (0..<perClient).map { index in
                try Payloads.createBody(prefix: "c\(round)-\(thread)", indices: index..<(index + 1), zone: zones[thread % zones.count])
            }
            return (try BenchClient(port: ports[thread % ports.count], webAuth: sessions.isEmpty ? nil : sessions[thread]), bodies)
        } run: { _, state in
            let (client, bodies) = state
            for body in bodies {
                let reply = try client.send("POST", BenchServer.path("records/modify"), body: body)
                guard reply.status == 200, !reply.body.contains("serverErrorCode") else {
                    throw BenchFailure("a concurrent create failed: \(reply.status) \(reply.text.prefix(300))")
                }
            }
        }
        return Double(clients * perClient) / elapsed
    }

    // MARK: 6. Queries

    enum QueryOutcome {
        case refused(String)
        case latencies([Double])
    }

    /// Runs the query `body` `count` times after one checked try; `refused` when the server answers 400.
    func query(_ body: [UInt8], count: Int, expecting: Int) throws -> QueryOutcome {
        let first = try client.send("POST", BenchServer.path("records/query"), body: body)
        if first.status == 400 { return .refused(first.body.jsonString(after: "reason") ?? first.text) }
        guard first.status == 200 else { throw BenchFailure("records/query answered \(first.status): \(first.text.prefix(300))") }
        let response = try WireCoding.decode(RecordsQuery.Response.self, from: Data(first.body))
        guard response.records.count == expecting else { throw BenchFailure("records/query returned \(response.records.count) records, expected \(expecting)") }
        try Self.checkSorted(response.records, body: body)
        return .latencies(
            try Baselines.latencies(count: count) {
                let reply = try client.send("POST", BenchServer.path("records/query"), body: body)
                guard reply.status == 200 else { throw BenchFailure("records/query answered \(reply.status)") }
            })
    }

    /// For a sorted query: every record passes the filter and `due` never increases.
    private static func checkSorted(_ results: [RecordResult], body: [UInt8]) throws {
        guard body.contains("sortBy") else { return }
        var previous = Int64.max
        for case .record(let record) in results {
            guard let due = record["due"]?.timestampValue?.millisecondsSince1970, let priority = record["priority"]?.int64Value,
                priority > 500, due <= previous
            else { throw BenchFailure("the filtered query returned records out of order or not matching the filter") }
            previous = due
        }
    }
}

/// Runs `run` on `threads` threads at once, after each has run `prepare` (connect, encode); returns wall seconds of `run`.
func parallel<State>(
    threads: Int, prepare: @escaping @Sendable (Int) throws -> State, run: @escaping @Sendable (Int, State) throws -> Void
) throws -> Double {
    let ready = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    let failures = Mutex<[String]>([])
    for index in 0..<threads {
        let thread = Thread {
            var state: State?
            do { state = try prepare(index) } catch { failures.withLock { $0.append("\(error)") } }
            ready.signal()
            go.wait()
            if let state {
                do { try run(index, state) } catch { failures.withLock { $0.append("\(error)") } }
            }
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    for _ in 0..<threads { ready.wait() }
    let start = monotonicNanoseconds()
    for _ in 0..<threads { go.signal() }
    for _ in 0..<threads { done.wait() }
    let elapsed = seconds(since: start)
    if let failure = failures.withLock({ $0.first }) { throw BenchFailure(failure) }
    return elapsed
}
