import BenchSupport
import Foundation
import StratusPostgres
import StratusServerPostgres
import Synchronization

/// Scenario 6 right after a bulk load, every run timed (issue 20, "No stalls"): load
/// `records` records in batches, then at once run the filtered + sorted query `queries` times
/// and print p50, p99, max and every run slower than 5× the p50, with when it ran after the
/// load and how much of it was spent waiting on PostgreSQL.
///
///   RecordsBench --stalls --backend sqlite,postgres --query-records 100000 --queries 100 [--settle 70]
///
/// On PostgreSQL a second connection samples `pg_stat_activity` every 10 ms while the queries
/// run and counts what other backends were doing (autovacuum and analyze workers, lock waits),
/// and the tables' `last_autoanalyze` / `last_autovacuum` are printed after the run. `--settle S`
/// runs the queries a second time S seconds after the load (after autovacuum had its chance).
enum QueryStalls {
    struct Settings {
        var records: Int
        var batch: Int
        var queries: Int
        var threads: Int
        var settle: Int
    }

    /// One timed run of the query.
    struct Run {
        var index: Int
        /// Seconds since the load ended, when the run started.
        var afterLoad: Double
        var microseconds: Double
        var postgresWaitMicroseconds: Double
    }

    static func run(_ configurations: [BackendComparison.Configuration], settings: Settings) async throws {
        for configuration in configurations where configuration.nodes == 1 {
            try await measure(configuration, settings: settings)
        }
    }

    private static func measure(_ configuration: BackendComparison.Configuration, settings: Settings) async throws {
        let server = try await BenchServer.start(threads: settings.threads, backend: configuration.backend)
        do {
            try await measure(configuration, on: server, settings: settings)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private static func measure(_ configuration: BackendComparison.Configuration, on server: BenchServer, settings: Settings) async throws {
        let client = try BenchClient(port: server.port)
        try server.createZone("q", client: client)
        let scenarios = Scenarios(client: client, zone: "q")
        print("\n\(configuration.name): loading \(grouped(Double(settings.records))) records… (load average \(loadAverage()))")
        let rate = try scenarios.create(prefix: "q", count: settings.records, batch: settings.batch)
        let loaded = monotonicNanoseconds()
        print("loaded at \(grouped(rate)) records/s")
        var sampler: ActivitySampler?
        if case .postgres(let url) = configuration.backend { sampler = try ActivitySampler.start(url: url) }
        let body = try Payloads.filteredQueryBody(zone: "q")
        // One client saving single records, each timed, while the first query (which builds the
        // development index on SQLite) runs: how long a write waits for it.
        let writer = try TimedWriter.start(port: server.port)
        var runs = try timedRuns(scenarios, body: body, count: 1, loaded: loaded)
        try writer.stop().report(during: runs[0].microseconds)
        runs += try timedRuns(scenarios, body: body, count: settings.queries - 1, loaded: loaded).map { run in
            var run = run
            run.index += 1
            return run
        }
        report(configuration.name + ", right after the load", runs)
        if settings.settle > 0 {
            let wait = Double(settings.settle) - Double(monotonicNanoseconds() - loaded) / 1e9
            if wait > 0 { try await Task.sleep(nanoseconds: UInt64(wait * 1e9)) }
            runs = try timedRuns(scenarios, body: body, count: settings.queries, loaded: loaded)
            report(configuration.name + ", \(settings.settle) s after the load", runs)
        }
        if let sampler {
            sampler.stop()
            sampler.printSummary()
            if case .postgres(let url) = configuration.backend, let store = server.store as? PostgresRecordStore {
                try printMaintenance(url: url, schema: store.schema ?? "public")
            }
        }
    }

    private static func timedRuns(_ scenarios: Scenarios, body: [UInt8], count: Int, loaded: UInt64) throws -> [Run] {
        var runs: [Run] = []
        for index in 0..<count {
            let before = PostgresStatistics.snapshot()
            let start = monotonicNanoseconds()
            let reply = try scenarios.client.send("POST", BenchServer.path("records/query"), body: body)
            let end = monotonicNanoseconds()
            guard reply.status == 200, !reply.body.contains("serverErrorCode") else {
                throw BenchFailure("records/query answered \(reply.status): \(reply.text.prefix(300))")
            }
            let spent = PostgresStatistics.snapshot() - before
            runs.append(
                Run(
                    index: index, afterLoad: Double(start - loaded) / 1e9, microseconds: Double(end - start) / 1000,
                    postgresWaitMicroseconds: Double(spent.waitNanoseconds) / 1000))
        }
        return runs
    }

    private static func report(_ title: String, _ runs: [Run]) {
        let latencies = runs.map(\.microseconds)
        let p50 = percentile(latencies, 50)
        let p99 = percentile(latencies, 99)
        let slowest = latencies.max() ?? 0
        print(
            "\(title): \(runs.count) runs, p50 \(µs(p50)), p99 \(µs(p99)), max \(µs(slowest)), p99/p50 \(String(format: "%.1f×", p99 / p50))"
                + " (target ≤ 5×: \(p99 <= 5 * p50 ? "met" : "MISSED")); first run \(µs(latencies.first ?? 0)); load average \(loadAverage())")
        for run in runs where run.microseconds > 5 * p50 {
            print(
                "  slow run #\(run.index) at \(String(format: "%.2f", run.afterLoad)) s after the load: \(µs(run.microseconds)),"
                    + " of which waiting on PostgreSQL \(µs(run.postgresWaitMicroseconds))")
        }
    }

    /// When autovacuum last analyzed and vacuumed the tables of `schema`, in seconds before now.
    private static func printMaintenance(url: String, schema: String) throws {
        let connection = try PostgresConnection(url: url)
        let rows = try connection.query(
            "SELECT relname, n_live_tup, COALESCE(extract(epoch FROM now() - last_autoanalyze)::text, 'never'),"
                + " COALESCE(extract(epoch FROM now() - last_autovacuum)::text, 'never'),"
                + " COALESCE(extract(epoch FROM now() - last_analyze)::text, 'never'), autoanalyze_count, autovacuum_count"
                + " FROM pg_stat_user_tables WHERE schemaname = $1 AND n_live_tup > 100 ORDER BY relname", [schema])
        print("tables of the schema (seconds ago): name, live rows, last autoanalyze, last autovacuum, last manual analyze, autoanalyzes, autovacuums")
        for row in rows {
            let cells = try (0..<7).map { (try row[$0] as String?) ?? "" }
            print("  " + cells.joined(separator: ", "))
        }
    }
}

/// Saves one new record at a time on its own thread and connection, timing each save, until stopped.
final class TimedWriter: Sendable {
    private let latencies = Mutex<[Double]>([])
    private let failure = Mutex<String?>(nil)
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    static func start(port: UInt16) throws -> TimedWriter {
        let writer = TimedWriter()
        nonisolated(unsafe) let client = try BenchClient(port: port)
        let thread = Thread {
            defer { writer.finished.signal() }
            var index = 0
            while !writer.stopped.load(ordering: .relaxed) {
                do {
                    let body = try Payloads.createBody(prefix: "w", indices: index..<(index + 1), zone: "q")
                    let start = monotonicNanoseconds()
                    let reply = try client.send("POST", BenchServer.path("records/modify"), body: body)
                    let end = monotonicNanoseconds()
                    guard reply.status == 200, !reply.body.contains("serverErrorCode") else { throw BenchFailure("records/modify answered \(reply.status)") }
                    writer.latencies.withLock { $0.append(Double(end - start) / 1000) }
                    index += 1
                } catch {
                    writer.failure.withLock { $0 = "\(error)" }
                    return
                }
            }
        }
        thread.start()
        return writer
    }

    func stop() throws -> TimedWriter {
        stopped.store(true, ordering: .relaxed)
        finished.wait()
        if let failure = failure.withLock({ $0 }) { throw BenchFailure("the timed writer failed: \(failure)") }
        return self
    }

    func report(during query: Double) {
        let values = latencies.withLock { $0 }
        guard !values.isEmpty else { return print("no single-record save by another client finished during the first query (\(µs(query)))") }
        print(
            "single-record saves by another client during the first query (\(µs(query))): \(values.count) saves,"
                + " p50 \(µs(percentile(values, 50))), p99 \(µs(percentile(values, 99))), max \(µs(values.max() ?? 0))")
    }
}

/// Samples what other PostgreSQL backends are doing every 10 ms on its own thread and connection.
final class ActivitySampler: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    private let samples = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    static func start(url: String) throws -> ActivitySampler {
        let sampler = ActivitySampler()
        let connection = try PostgresConnection(url: url)
        nonisolated(unsafe) let confined = connection
        let thread = Thread {
            defer { sampler.finished.signal() }
            while !sampler.stopped.load(ordering: .relaxed) {
                sampler.sample(confined)
                usleep(10_000)
            }
        }
        thread.start()
        return sampler
    }

    private func sample(_ connection: PostgresConnection) {
        let sql =
            "SELECT backend_type, state, COALESCE(wait_event_type || ':' || wait_event, 'on CPU'), left(regexp_replace(query, '\\s+', ' ', 'g'), 60)"
            + " FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND (state IS NULL OR state <> 'idle')"
            + " AND backend_type IN ('client backend', 'autovacuum worker', 'checkpointer')"
        guard let rows = try? connection.query(sql) else { return }
        samples.add(1, ordering: .relaxed)
        var seen: [String] = []
        for row in rows {
            let type = (try? row[0] as String?) ?? nil
            let state = (try? row[1] as String?) ?? nil
            let wait = (try? row[2] as String?) ?? nil
            let query = (try? row[3] as String?) ?? nil
            // Client backends running our own query on CPU are the expected case; count the rest in full.
            let label =
                type == "client backend" && wait == "on CPU"
                ? "client backend, on CPU" : "\(type ?? "?") [\(state ?? "-")] \(wait ?? "?"): \(query ?? "")"
            seen.append(label)
        }
        counts.withLock { counts in for label in seen { counts[label, default: 0] += 1 } }
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        finished.wait()
    }

    func printSummary() {
        let total = samples.load(ordering: .relaxed)
        print("pg_stat_activity, \(total) samples every 10 ms while the queries ran (other backends, not idle; samples seen in):")
        for (label, count) in counts.withLock({ $0 }).sorted(by: { $0.value > $1.value }).prefix(15) {
            print("  \(count)× \(label)")
        }
    }
}
