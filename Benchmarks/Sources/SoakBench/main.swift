import BenchSupport
import Foundation

// SoakBench: the real `stratus serve` (--stratus, default .build/release/stratus) in a child
// process, with authentication on, under a steady mixed workload through real HTTP for --minutes
// (default 30): record writes single and batched, queries, zone change feeds, parked courier
// polls woken by a subscription, asset uploads and downloads, sign-ins and sign-outs, and three
// kinds of failure provoked on purpose (Workload). Each --sample-seconds (60) it samples the
// server's RSS, open descriptors and threads (/proc/PID), the load average, and each kind's
// latency p50/p99 and errors, and prints a row. At the end: every sample after the warm-up
// (--warmup minutes, default 3) must be within --tolerance percent (10) of the warm-up's last
// for RSS, descriptors and threads, and no request may fail but the provoked ones; the exit
// status is 1 otherwise. Latency is reported as ratios, not judged (the machine is shared).
//
//   swift build -c release --package-path Benchmarks --product stratus --product SoakBench
//   Benchmarks/.build/release/SoakBench --stratus Benchmarks/.build/release/stratus [--minutes 30] [--warmup 3]
//       [--sample-seconds 60] [--tolerance 10] [--serve-flags "--threads 8"]

let minutes = CommandLineOption.integer("minutes", default: 30)
let warmup = CommandLineOption.integer("warmup", default: 3)
let sampleSeconds = CommandLineOption.integer("sample-seconds", default: 60)
let tolerance = Double(CommandLineOption.integer("tolerance", default: 10)) / 100

func stringOption(_ name: String, default fallback: String) -> String {
    guard let index = CommandLine.arguments.firstIndex(of: "--\(name)"), index + 1 < CommandLine.arguments.count else { return fallback }
    return CommandLine.arguments[index + 1]
}

func loadAverage() -> String {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
    return text.split(separator: " ").prefix(3).joined(separator: " ")
}

let serveFlags = stringOption("serve-flags", default: "").split(separator: " ").map(String.init)
let server = try SoakServer.start(stratus: stringOption("stratus", default: ".build/release/stratus"), extraFlags: serveFlags)
defer { server.stop() }
let recorder = Recorder()
let workload = Workload(port: server.port, apiToken: server.apiToken, recorder: recorder)
print("stratus serve pid \(server.pid) on 127.0.0.1:\(server.port); \(minutes) min, a sample every \(sampleSeconds) s, warm-up \(warmup) min")
let idle = try server.usage()
print(String(format: "before the workload: RSS %.1f MB, %d fds, %d threads, load %@", Double(idle.rssKB) / 1024, idle.fds, idle.threads, loadAverage()))
let start = monotonicNanoseconds()
try workload.start(tokens: server.webAuthToken)
print(Report.header())
fflush(nil)

var samples: [Sample] = []
for minute in 1...max(minutes, 1) {
    let due = start + UInt64(minute * sampleSeconds) * 1_000_000_000
    let now = monotonicNanoseconds()
    if due > now { usleep(UInt32((due - now) / 1000)) }
    let usage = try workload.betweenSignIns { try server.usage() }
    let sample = Sample(minute: minute, usage: usage, load: loadAverage(), tallies: recorder.drain())
    samples.append(sample)
    print(Report.row(sample))
    fflush(nil)  // each row as it comes, also into a file
}
workload.stop()
_ = recorder.drain()  // the stopping threads' last requests: counted in the totals, in no sample

let passed = Report.verdict(samples, warmup: warmup, tolerance: tolerance, recorder: recorder)
print(passed ? "\nSOAK PASSED: flat after the warm-up, no unexpected error" : "\nSOAK FAILED")
server.stop()
exit(passed ? 0 : 1)
