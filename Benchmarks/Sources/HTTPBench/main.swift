// HTTP overhead benchmark (issue: foundation).
//
// Measures requests/s and p50/p99 latency of a small JSON endpoint served by the
// full Stratus stack (router + metrics, access-log and CORS middleware on
// libmicrohttpd) at 2 and 64 connections, next to a bare libmicrohttpd handler
// in C started with the same flags and thread pool, all in one run. wrk drives
// every target; rounds are interleaved and medians reported.
//
//   swift run -c release --package-path Benchmarks HTTPBench [--seconds 5] [--rounds 3] [--threads 4]
import BenchSupport
import Foundation
import StratusHTTP
import StratusHTTPServer
import StratusLogging
import StratusMetrics

let arguments = CommandLine.arguments
func option(_ name: String, _ fallback: Int) -> Int {
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count, let value = Int(arguments[index + 1]) else { return fallback }
    return value
}
let seconds = option("seconds", 5)
let rounds = option("rounds", 3)
let threads = option("threads", 4)

// The Stratus side, in this process.
let body = Data(#"{"status":"ok"}"#.utf8)
let metrics = MetricsRegistry()
let quiet = Logger(label: "bench", level: .warning, handler: StreamLogHandler(format: .text))
var router = Router(logger: quiet)
router.use(MetricsMiddleware(registry: metrics))
router.use(AccessLogMiddleware(logger: quiet))
router.use(CORSMiddleware())
router.immediate(.get, "/health") { _ in .json(bytes: body) }
router.route(.get, "/async") { _ in .json(bytes: body) }
var configuration = HTTPServerConfiguration()
configuration.port = 0
configuration.threadPoolSize = threads
let server = HTTPServer(configuration: configuration, responder: router, logger: quiet)
try server.start()

// The bare libmicrohttpd side, in its own process.
let helloPath = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("MHDHello").path
let hello = Process()
hello.executableURL = URL(fileURLWithPath: helloPath)
hello.arguments = ["0", String(threads)]
let helloOut = Pipe()
hello.standardOutput = helloOut
try hello.run()
var firstLine = Data()
while !firstLine.contains(UInt8(ascii: "\n")) {
    let chunk = helloOut.fileHandleForReading.availableData
    if chunk.isEmpty { break }
    firstLine.append(chunk)
}
guard let helloPort = String(decoding: firstLine, as: UTF8.self).split(separator: " ").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
else {
    fatalError("MHDHello did not report its port")
}

let targets: [(name: String, url: String)] = [
    ("bare libmicrohttpd (C)", "http://127.0.0.1:\(helloPort)/health"),
    ("Stratus, immediate handler", "http://127.0.0.1:\(server.port)/health"),
    ("Stratus, async handler", "http://127.0.0.1:\(server.port)/async"),
]
let connectionCounts = [2, 64]
var results: [String: [Wrk.Result]] = [:]
print("HTTPBench: \(rounds) round(s) × \(seconds) s per target, thread pool \(threads), machine has \(ProcessInfo.processInfo.activeProcessorCount) cores")
for round in 1...rounds {
    for connections in connectionCounts {
        for target in targets {
            // Warm up briefly so connection setup and caches do not count.
            _ = try Wrk.run(url: target.url, connections: connections, seconds: 1)
            let result = try Wrk.run(url: target.url, connections: connections, seconds: seconds)
            results["\(target.name)|\(connections)", default: []].append(result)
            print(
                "round \(round) c=\(connections) \(target.name): \(grouped(result.requestsPerSecond)) req/s p50 \(result.p50) µs p99 \(result.p99) µs errors \(result.errors)"
            )
        }
    }
}

print("\n| target | connections | requests/s (median) | p50 µs | p99 µs | throughput vs bare | errors |")
print("|---|---|---|---|---|---|---|")
for connections in connectionCounts {
    let bare = median(results["\(targets[0].name)|\(connections)", default: []].map(\.requestsPerSecond))
    for target in targets {
        let runs = results["\(target.name)|\(connections)", default: []]
        let rps = median(runs.map(\.requestsPerSecond))
        let ratio = String(format: "%.2f×", rps / bare)
        print(
            "| \(target.name) | \(connections) | \(grouped(rps)) | \(String(format: "%.0f", median(runs.map(\.p50)))) | \(String(format: "%.0f", median(runs.map(\.p99)))) | \(ratio) | \(runs.map(\.errors).reduce(0, +)) |"
        )
    }
}

hello.terminate()
hello.waitUntilExit()
await server.shutdown()
