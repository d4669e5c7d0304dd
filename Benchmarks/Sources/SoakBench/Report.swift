import BenchSupport
import Foundation

/// One minute of the soak: what the server held at its end and what the workload saw during it.
struct Sample {
    var minute: Int
    var usage: SoakServer.Usage
    /// `/proc/loadavg`'s 1-, 5- and 15-minute load averages (the machine is shared).
    var load: String
    var tallies: [String: KindTally]
}

/// The per-minute table and the end-of-run verdict.
enum Report {
    /// The kinds in the table, in order (the rest are in the totals).
    static let columns = ["write", "batch", "query", "changes", "poll", "upload", "download", "sign-in"]

    static func header() -> String {
        let kinds = columns.map { $0.padding(toLength: 13, withPad: " ", startingAt: 0) }.joined(separator: " ")
        return "min  RSS MB   fds thr  load 1/5/15     | p50/p99 ms: \(kinds) | errors (provoked)"
    }

    static func row(_ sample: Sample) -> String {
        let latencies = columns.map { kind -> String in
            guard let tally = sample.tallies[kind], !tally.latencies.isEmpty else { return "—".padding(toLength: 13, withPad: " ", startingAt: 0) }
            return String(format: "%5.1f/%-7.1f", tally.p50, tally.p99)
        }
        let unexpected = sample.tallies.values.reduce(0) { $0 + $1.unexpected }
        let provoked = sample.tallies.values.reduce(0) { $0 + $1.provoked }
        return String(
            format: "%3d  %6.1f  %4d %3d  %@ |             %@ | %d (%d)", sample.minute, Double(sample.usage.rssKB) / 1024, sample.usage.fds,
            sample.usage.threads, sample.load.padding(toLength: 16, withPad: " ", startingAt: 0) as NSString, latencies.joined(separator: " ") as NSString,
            unexpected, provoked)
    }

    /// Prints the verdict; `true` when RSS, descriptors and threads stayed within `tolerance` of
    /// their value at the end of the warm-up and no request failed unasked.
    static func verdict(_ samples: [Sample], warmup: Int, tolerance: Double, recorder: Recorder) -> Bool {
        guard let base = samples.first(where: { $0.minute == warmup }) else {
            print("no sample at the end of the warm-up (minute \(warmup)): run longer than the warm-up")
            return false
        }
        let after = samples.filter { $0.minute > warmup }
        print("\nFlat after the warm-up (every sample after minute \(warmup) within \(Int(tolerance * 100))% of minute \(warmup)'s):")
        var flat = true
        let metrics: [(String, (SoakServer.Usage) -> Int)] = [("RSS (KB)", \.rssKB), ("open fds", \.fds), ("threads", \.threads)]
        for (name, value) in metrics {
            let values = after.map { value($0.usage) }
            let reference = Double(value(base.usage))
            let worst = values.map { Double($0) / reference - 1 }.max { abs($0) < abs($1) } ?? 0
            let ok = abs(worst) <= tolerance
            flat = flat && ok
            print(
                String(
                    format: "  %@ at minute %d: %d; after: %d…%d; last %d; worst %+.1f%%  %@",
                    name.padding(toLength: 9, withPad: " ", startingAt: 0) as NSString, warmup, value(base.usage),
                    values.min() ?? 0, values.max() ?? 0, values.last ?? 0, worst * 100, (ok ? "flat" : "NOT FLAT") as NSString))
        }
        latencyRatios(base: base, after: after)
        return errors(recorder) && flat
    }

    /// Each kind's p50 and p99 after the warm-up (medians of the per-minute figures) over the warm-up's last minute.
    /// Reported, not judged: the machine is shared, so a slower minute is as likely the neighbours as the server.
    private static func latencyRatios(base: Sample, after: [Sample]) {
        print("\nLatency after the warm-up, median of the per-minute p50 / p99, and the ratio to the warm-up's last minute:")
        for kind in base.tallies.keys.sorted() {
            guard let reference = base.tallies[kind], !reference.latencies.isEmpty else { continue }
            let p50s = after.compactMap { $0.tallies[kind] }.filter { !$0.latencies.isEmpty }.map(\.p50)
            let p99s = after.compactMap { $0.tallies[kind] }.filter { !$0.latencies.isEmpty }.map(\.p99)
            guard !p50s.isEmpty else { continue }
            let (p50, p99) = (percentile(p50s, 50), percentile(p99s, 50))
            print(
                String(
                    format: "  %@ p50 %7.2f ms (×%.2f), p99 %8.2f ms (×%.2f)", kind.padding(toLength: 17, withPad: " ", startingAt: 0) as NSString,
                    p50, p50 / reference.p50, p99,
                    p99 / reference.p99))
        }
    }

    /// Prints the totals per kind; `true` when no request failed unasked.
    private static func errors(_ recorder: Recorder) -> Bool {
        let totals = recorder.totals()
        print("\nRequests per kind over the run: answered as asked / unexpected errors / provoked errors (failed as meant):")
        for kind in totals.keys.sorted() {
            let total = totals[kind] ?? Total()
            print("  \(kind.padding(toLength: 17, withPad: " ", startingAt: 0)) \(total.answered) / \(total.unexpected) / \(total.provoked)")
        }
        let unexpected = totals.values.reduce(0) { $0 + $1.unexpected }
        for example in recorder.examples { print("  unexpected: \(example)") }
        print(unexpected == 0 ? "No unexpected error." : "\(unexpected) unexpected error(s): NOT CLEAN")
        return unexpected == 0
    }
}
