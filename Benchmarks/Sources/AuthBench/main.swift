// Authentication benchmark: what each kind of credential costs per request.
//
// Starts two real servers in this process (SQLite store in a temporary directory, CloudKitService,
// libmicrohttpd on 127.0.0.1:0): one in open mode (no authentication) and one that requires it,
// with a user, an API token, a web auth token and a registered server-to-server key. Every mode
// looks up the same public record (`records/lookup` in the public database) over keep-alive
// connections (BenchSupport.LoopbackHTTPClient) from several client threads for a fixed time:
//
//   open        no credentials (open-mode server)
//   API token   ?ckAPIToken=… (anonymous, public database reads)
//   web auth    ?ckAPIToken=…&ckWebAuthToken=… (a signed-in user)
//   signature   X-Apple-CloudKit-Request-KeyID / -ISO8601Date / -SignatureV1 (ECDSA P-256 over
//               date, body hash and path; signatures are made before the timed run, as a
//               client would, so the figure is the server's cost of verifying them); the key record
//               is reused while the store's credential generation is unchanged (0006)
//   signature, key read every request
//               the same, on a third server whose store hides its credential generation, so every
//               signed request reads the key record (the behaviour before the generation)
//
// Modes alternate within each round; the report is the median of rounds. The run fails when the
// signature mode is below half of open mode's throughput.
//
//   swift run -c release --package-path Benchmarks AuthBench [--seconds 2] [--rounds 3] [--clients 4] [--threads 4]
//       [--only "server-to-server"] [--endpoint records/modify] [--requests N]
import BenchSupport
import Foundation
import StratusCrypto
import StratusServerCrypto
import StratusHTTP
import StratusHTTPServer
import StratusLogging
import StratusServer
import StratusServerSQLite
import Synchronization

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count, let value = Int(arguments[index + 1]) else { return fallback }
    return value
}
let seconds = option("seconds", 2)
let rounds = option("rounds", 3)
let clients = option("clients", 4)
let threads = option("threads", 4)
/// `--requests N`: each client thread sends exactly N requests instead of running for `--seconds`
/// (repeatable instruction counts under `valgrind --tool=callgrind`).
let requestsPerClient = option("requests", 0)
let container = "iCloud.com.example.AuthBench"
let path = "/database/1/\(container)/development/public/records/lookup"
let body = Array(#"{"records":[{"recordName":"bench"}]}"#.utf8)
let modifyPath = "/database/1/\(container)/development/public/records/modify"
let modifyBody = Array(
    #"{"operations":[{"operationType":"forceReplace","record":{"recordName":"written","recordType":"Note","fields":{"title":{"value":"auth bench write","type":"STRING"}}}}]}"#
        .utf8)

/// How one mode sends its request.
struct Mode: Sendable {
    var name: String
    var port: UInt16
    var target: String
    var body: [UInt8]
    /// Header sets for client thread `index`, made before each timed run; empty for none.
    var headers: @Sendable (Int) -> [[(String, String)]]
    /// Whether each header set may be sent once only (server-to-server signatures, which the
    /// server refuses to accept twice): a client then stops when its sets run out, instead of
    /// cycling through them.
    var singleUse = false
    /// For a client that follows the web auth token rotation, as CloudKit JS does: the target of
    /// the next request, given the token the last reply issued (`X-Apple-CloudKit-Web-Auth-Token`).
    var rotate: (@Sendable (String) -> String)?
}

/// Requests per second of `mode` over `seconds`, with `clients` threads, and the process's CPU
/// time per request (server and client threads together; steadier than throughput while other
/// work shares the cores).
func measure(_ mode: Mode) throws -> (perSecond: Double, p50: Double, p99: Double, cpuPerRequest: Double) {
    let ready = DispatchSemaphore(value: 0)
    let go = DispatchSemaphore(value: 0)
    let done = DispatchSemaphore(value: 0)
    let failures = Mutex<[String]>([])
    let counts = Mutex<(requests: Int, latencies: [Double])>((0, []))
    let deadline = Mutex<UInt64>(0)
    for index in 0..<clients {
        let thread = Thread {
            var client: LoopbackHTTPClient?
            var target = mode.target
            let headerSets = mode.headers(index).map { set in set.flatMap { Array("\($0.0): \($0.1)\r\n".utf8) } }
            do {
                client = try LoopbackHTTPClient(port: mode.port)
                // Warm the connection and check the credentials once.
                let reply = try client?.send("POST", target, body: mode.body, rawHeaders: headerSets.first ?? [])
                if reply?.status != 200 { throw BenchFailure("\(mode.name): status \(reply?.status ?? 0): \(reply?.text ?? "")") }
                if let rotate = mode.rotate, let reply { target = try rotated(reply, mode, rotate) }
            } catch { failures.withLock { $0.append("\(error)") } }
            ready.signal()
            go.wait()
            var requests = 0
            var latencies: [Double] = []
            latencies.reserveCapacity(100_000)
            if let client {
                let end = deadline.withLock { $0 }
                do {
                    while true {
                        let start = monotonicNanoseconds()
                        if requestsPerClient > 0 ? requests >= requestsPerClient : start >= end { break }
                        // The first set warmed the connection; a single-use set is never sent again.
                        if mode.singleUse, requests + 1 >= headerSets.count { break }
                        let headers = headerSets.isEmpty ? [] : headerSets[(requests + 1) % headerSets.count]
                        let reply = try client.send("POST", target, body: mode.body, rawHeaders: headers)
                        guard reply.status == 200 else { throw BenchFailure("\(mode.name): status \(reply.status): \(reply.text)") }
                        if let rotate = mode.rotate { target = try rotated(reply, mode, rotate) }
                        latencies.append(Double(monotonicNanoseconds() - start) / 1000)
                        requests += 1
                    }
                } catch { failures.withLock { $0.append("\(error)") } }
            }
            counts.withLock {
                $0.requests += requests
                $0.latencies += latencies
            }
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    for _ in 0..<clients { ready.wait() }
    let cpuStart = processCPUSeconds()
    let start = monotonicNanoseconds()
    deadline.withLock { $0 = start + UInt64(seconds) * 1_000_000_000 }
    for _ in 0..<clients { go.signal() }
    for _ in 0..<clients { done.wait() }
    let elapsed = Double(monotonicNanoseconds() - start) / 1e9
    let cpu = processCPUSeconds() - cpuStart
    if let failure = failures.withLock({ $0.first }) { throw BenchFailure(failure) }
    let (requests, latencies) = counts.withLock { ($0.requests, $0.latencies) }
    return (Double(requests) / elapsed, percentile(latencies, 50), percentile(latencies, 99), cpu * 1e6 / Double(max(requests, 1)))
}

/// The target of the next request of a mode that follows the web auth token rotation.
func rotated(_ reply: LoopbackHTTPClient.Response, _ mode: Mode, _ rotate: (String) -> String) throws -> String {
    guard let token = reply.webAuthToken else { throw BenchFailure("\(mode.name): the reply carries no refreshed web auth token") }
    return rotate(token)
}

func median(_ values: [Double]) -> Double { percentile(values, 50) }
func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
}

/// Runs blocking work on a thread of its own, so it never holds one of the few cooperative-pool
/// threads the servers' handlers run on (the machine has 2 cores, so the pool has 2 threads).
func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.stackSize = 1 << 20
        thread.start()
    }
}

/// CPU time of the calling thread, so other work on the machine does not count.
func threadCPUNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// The floor of the signature mode: microseconds of CPU to verify one of `prepared` (signatures of
/// the lookup) in process, on one thread, no HTTP.
func verificationCost(_ signer: Signer, _ prepared: [[(String, String)]]) throws -> Double {
    let publicKey = signer.key.publicKey
    let signed = prepared.map { headers in
        (
            headers.first { $0.0 == ServerToServerSignature.dateHeaderName }?.1 ?? "",
            headers.first { $0.0 == ServerToServerSignature.signatureHeaderName }?.1 ?? ""
        )
    }
    let bodyData = Data(body)
    var count = 0
    let start = threadCPUNanoseconds()
    while threadCPUNanoseconds() - start < 1_000_000_000 {
        let (date, signature) = signed[count % signed.count]
        guard ServerToServerSignature.isValidSignature(signature, date: date, body: bodyData, path: path, publicKey: publicKey) else {
            throw BenchFailure("a prepared signature did not verify in process")
        }
        count += 1
    }
    return Double(threadCPUNanoseconds() - start) / 1000 / Double(count)
}

/// The value of `--name`, if given.
func textOption(_ name: String) -> String? { arguments.firstIndex(of: "--\(name)").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil } }

/// Each mode's figures over the rounds, by mode name.
struct Figures {
    var rates: [String: [Double]] = [:]
    var p50s: [String: [Double]] = [:]
    var p99s: [String: [Double]] = [:]
    var cpus: [String: [Double]] = [:]
}

/// Measures `modes` for `--rounds` rounds, the modes alternating within each round.
func measureRounds(_ modes: [Mode]) async throws -> Figures {
    var figures = Figures()
    for _ in 1...rounds {
        for mode in modes {
            let figure = try await onThread { try measure(mode) }
            figures.rates[mode.name, default: []].append(figure.perSecond)
            figures.p50s[mode.name, default: []].append(figure.p50)
            figures.p99s[mode.name, default: []].append(figure.p99)
            figures.cpus[mode.name, default: []].append(figure.cpuPerRequest)
        }
    }
    return figures
}

/// Prints one endpoint's table (medians of rounds, relative to its first mode, open) and the
/// signature check; returns false when the signature mode is below half of open mode's throughput.
func printTable(_ endpoint: String, _ modes: [Mode], _ figures: Figures) -> Bool {
    let baseline = median(figures.rates[modes[0].name] ?? [])
    let baselineCPU = median(figures.cpus[modes[0].name] ?? [])
    print("\(endpoint)\n")
    print("| mode | requests/s | vs open | p50 | p99 | CPU/request | open's CPU / this |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for mode in modes {
        let rate = median(figures.rates[mode.name] ?? [])
        let cpu = median(figures.cpus[mode.name] ?? [])
        print(
            String(
                format: "| %@ | %.0f | %.0f%% | %.0f µs | %.0f µs | %.0f µs | %.0f%% |", mode.name, rate, 100 * rate / baseline,
                median(figures.p50s[mode.name] ?? []), median(figures.p99s[mode.name] ?? []), cpu, 100 * baselineCPU / cpu))
    }
    let signature = median(figures.rates["server-to-server"] ?? [])
    if signature < baseline / 2 {
        print("\nFAIL: server-to-server signatures cut throughput by more than half (\(Int(signature)) vs \(Int(baseline)) requests/s)\n")
        return false
    }
    print("\nOK: server-to-server signatures keep \(Int(100 * signature / baseline))% of open-mode throughput (limit: 50%)\n")
    return true
}

/// The benchmark itself; called from a synchronous top level (below).
///
/// `--only <mode name or prefix>` measures one mode of one endpoint (for profilers): of the lookup,
/// or of the endpoint named by `--endpoint <name or prefix>` (e.g. `records/modify`).
func run() async throws {
    print(
        "AuthBench: \(rounds) round(s) of \(seconds) s per mode; \(clients) client threads; HTTP thread pool \(threads); \(ProcessInfo.processInfo.activeProcessorCount) cores; load average \(loadAverage())"
    )
    print("endpoint: POST \(path) (one record), keep-alive LoopbackHTTPClient\n")
    let fixture = try await startServers()
    try seed(fixture)
    let lookupSignatures = fixture.signer.signatures(body: body, path: path, count: 64)
    let only = textOption("only")
    let onlyEndpoint = textOption("endpoint") ?? "records/lookup"
    if only == nil {
        let cost = try await onThread { [signer = fixture.signer] in try verificationCost(signer, lookupSignatures) }
        print(String(format: "in process, one thread: ServerToServerSignature.isValidSignature %.1f µs of CPU per signature\n", cost))
    }
    let endpoints = benchEndpoints(fixture)
    try warmUp(endpoints, fixture.signer)
    var failed = false
    for (endpoint, modes) in endpoints {
        if let only {
            guard endpoint.hasPrefix(onlyEndpoint) else { continue }
            let measured = modes.contains { $0.name == only } ? modes.filter { $0.name == only } : modes.filter { $0.name.hasPrefix(only) }
            let figures = try await measureRounds(measured)
            for mode in measured {
                print("\(mode.name): \(Int(median(figures.rates[mode.name] ?? []))) requests/s, \(Int(median(figures.cpus[mode.name] ?? []))) µs CPU/request")
            }
        } else if !printTable(endpoint, modes, try await measureRounds(modes)) {
            failed = true
        }
    }
    await fixture.open.stop()
    await fixture.secured.stop()
    await fixture.everyRequest.stop()
    if failed { exit(1) }
}

// The top level is synchronous and waits on a semaphore rather than being an async main: valgrind
// (callgrind, for `--requests`) crashes on a main thread parked in dispatch_main. Detached: a task
// inheriting the top level's main actor would wait for the blocked main thread forever.
let finished = DispatchSemaphore(value: 0)
let outcome = Mutex<(any Error)?>(nil)
Task.detached {
    do { try await run() } catch { outcome.withLock { $0 = error } }
    finished.signal()
}
finished.wait()
if let error = outcome.withLock({ $0 }) {
    FileHandle.standardError.write(Data("AuthBench: \(error)\n".utf8))
    exit(1)
}
