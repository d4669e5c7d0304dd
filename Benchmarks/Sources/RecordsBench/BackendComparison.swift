import BenchSupport
import Foundation
import StratusPostgres

/// Scenarios 1, 2, 4, 5, 5z, 6′ and 6 (queries over the records of 1) on each back end in one run — SQLite, PostgreSQL with one node,
/// PostgreSQL with several nodes on one schema (`--pg-nodes`, 1 and 3 by default; clients spread over them) — and where a
/// PostgreSQL request's time goes: round trips, time waiting on PostgreSQL (network, its
/// work, lock waits), of which `COMMIT`, and the rest (HTTP, JSON, service logic).
///
/// The nodes run in this process (each its own connection pool, service and HTTP server), so
/// the several-node figures show the cost of sharing one database, not more CPUs: the machine
/// is the same. Scenario 5z is 5 with a zone per client: writers that share no zone lock.
enum BackendComparison {
    struct Configuration {
        var name: String
        var backend: BenchServer.Backend
        var nodes: Int
    }

    struct Settings {
        var records: Int
        var batch: Int
        var updates: Int
        var clients: Int
        var perClient: Int
        var threads: Int
        var rounds: Int
        var queries: Int
    }

    /// One round of one configuration.
    struct Figures {
        var creates = 0.0, feed = 0.0, updateP50 = 0.0, updateP99 = 0.0, updateMean = 0.0, concurrent = 0.0, concurrentZones = 0.0
        var typeQueryP50 = 0.0, filteredQueryP50 = 0.0
        var createPG = PostgresStatistics.Snapshot.zero, feedPG = PostgresStatistics.Snapshot.zero
        var updatePG = PostgresStatistics.Snapshot.zero, concurrentPG = PostgresStatistics.Snapshot.zero
        var concurrentZonesPG = PostgresStatistics.Snapshot.zero
        var feedPages = 0
    }

    /// The configurations for `--backend` names: `sqlite`, `postgres` (one configuration per entry of `nodes`).
    static func configurations(_ names: [String], nodes: [Int] = [1, 3]) throws -> [Configuration] {
        var configurations: [Configuration] = []
        for name in names {
            switch name {
            case "sqlite": configurations.append(Configuration(name: "SQLite", backend: .sqlite, nodes: 1))
            case "postgres":
                guard let url = ProcessInfo.processInfo.environment["STRATUS_POSTGRES_URL"], !url.isEmpty else {
                    throw BenchFailure("--backend postgres needs STRATUS_POSTGRES_URL; run under Scripts/test-postgres.sh run …")
                }
                for count in nodes where count > 0 {
                    configurations.append(Configuration(name: "PostgreSQL, \(count) node\(count == 1 ? "" : "s")", backend: .postgres(url: url), nodes: count))
                }
            default: throw BenchFailure("--backend takes sqlite and postgres, comma-separated; got '\(name)'")
            }
        }
        return configurations
    }

    /// Runs every configuration `settings.rounds` times, interleaved, and prints the tables.
    static func run(_ configurations: [Configuration], settings: Settings) async throws {
        let roundTrip = try postgresRoundTrip(configurations)
        var results: [String: [Figures]] = [:]
        for round in 1...settings.rounds {
            for configuration in configurations {
                let figures = try await measure(configuration, settings: settings, round: round)
                results[configuration.name, default: []].append(figures)
                print(
                    "round \(round), \(configuration.name): creates \(grouped(figures.creates))/s | feed \(grouped(figures.feed))/s | "
                        + "update p50 \(µs(figures.updateP50)) | \(settings.clients) clients \(grouped(figures.concurrent))/s | "
                        + "a zone each \(grouped(figures.concurrentZones))/s"
                )
            }
        }
        report(configurations, results: results, settings: settings, roundTrip: roundTrip)
    }

    private static func measure(_ configuration: Configuration, settings: Settings, round: Int) async throws -> Figures {
        var figures = Figures()
        let server = try await BenchServer.start(threads: settings.threads, backend: configuration.backend)
        do {
            try await server.startNodes(configuration.nodes - 1, threads: settings.threads)
            let client = try BenchClient(port: server.port)
            try server.createZone("r", client: client)
            let clientZones = (0..<settings.clients).map { "z\($0)" }
            for zone in clientZones { try server.createZone(zone, client: client) }
            let scenarios = Scenarios(client: client, zone: "r")
            var before = PostgresStatistics.snapshot()
            figures.creates = try scenarios.create(prefix: "r", count: settings.records, batch: settings.batch)
            figures.createPG = PostgresStatistics.snapshot() - before

            // The feed is read through the last node: on three nodes, not the one that wrote.
            let reader = Scenarios(client: try BenchClient(port: server.ports.last ?? server.port), zone: "r")
            before = PostgresStatistics.snapshot()
            let feed = try reader.downloadFeed(expecting: settings.records)
            figures.feedPG = PostgresStatistics.snapshot() - before
            figures.feed = feed.recordsPerSecond
            figures.feedPages = max(1, (settings.records + 199) / 200)

            // 6′ and 6 on the records of (1): a page of 200 of the type (store order), and priority > 500 newest due first.
            guard
                case .latencies(let typeOnly) = try scenarios.query(
                    try Payloads.typeQueryBody(zone: "r"), count: settings.queries, expecting: min(200, settings.records)
                )
            else { throw BenchFailure("the server refused the type-only query") }
            figures.typeQueryP50 = percentile(typeOnly, 50)
            guard
                case .latencies(let filtered) = try scenarios.query(
                    try Payloads.filteredQueryBody(zone: "r"), count: settings.queries, expecting: min(200, settings.records / 2)
                )
            else { throw BenchFailure("the server refused the filtered query") }
            figures.filteredQueryP50 = percentile(filtered, 50)

            before = PostgresStatistics.snapshot()
            let latencies = try scenarios.conditionalUpdates(name: Payloads.name("r", 1), count: settings.updates)
            figures.updatePG = PostgresStatistics.snapshot() - before
            figures.updateP50 = percentile(latencies, 50)
            figures.updateP99 = percentile(latencies, 99)
            figures.updateMean = latencies.reduce(0, +) / Double(max(1, latencies.count))

            before = PostgresStatistics.snapshot()
            figures.concurrent = try Scenarios.concurrentCreates(
                ports: server.ports, zones: ["r"], clients: settings.clients, perClient: settings.perClient, round: round
            )
            figures.concurrentPG = PostgresStatistics.snapshot() - before

            before = PostgresStatistics.snapshot()
            figures.concurrentZones = try Scenarios.concurrentCreates(
                ports: server.ports, zones: clientZones, clients: settings.clients, perClient: settings.perClient, round: round
            )
            figures.concurrentZonesPG = PostgresStatistics.snapshot() - before
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        return figures
    }

    /// The median `SELECT 1` round trip to the PostgreSQL server (µs), the floor of any statement; `nil` without PostgreSQL.
    private static func postgresRoundTrip(_ configurations: [Configuration]) throws -> Double? {
        for configuration in configurations {
            guard case .postgres(let url) = configuration.backend else { continue }
            let connection = try PostgresConnection(url: url)
            return percentile(try Baselines.latencies(count: 2_000) { _ = try connection.query("SELECT 1") }, 50)
        }
        return nil
    }

    private static func report(_ configurations: [Configuration], results: [String: [Figures]], settings: Settings, roundTrip: Double?) {
        func med(_ name: String, _ key: (Figures) -> Double) -> Double { median((results[name] ?? []).map(key)) }
        let baseline = configurations.first?.name ?? ""
        func ratio(_ name: String, _ key: (Figures) -> Double) -> String {
            name == baseline ? "" : String(format: " (%.2f×)", med(name, key) / med(baseline, key))
        }
        print(
            "\n| back end | 1. create \(grouped(Double(settings.records))), batches of \(settings.batch) | 2. change feed (200/page) | 4. sequential conditional update p50 (p99) | 5. \(settings.clients) clients × \(settings.perClient) single creates, one zone | 5z. the same, a zone per client | 6′. type-only query, 200 of \(grouped(Double(settings.records))), p50 | 6. filtered + sorted query, p50 |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for configuration in configurations {
            let name = configuration.name
            print(
                "| \(name) | \(grouped(med(name, \.creates))) records/s\(ratio(name, \.creates)) | \(grouped(med(name, \.feed))) records/s\(ratio(name, \.feed)) | "
                    + "\(µs(med(name, \.updateP50))) (\(µs(med(name, \.updateP99))))\(ratio(name, \.updateP50)) | \(grouped(med(name, \.concurrent))) records/s\(ratio(name, \.concurrent)) | "
                    + "\(grouped(med(name, \.concurrentZones))) records/s\(ratio(name, \.concurrentZones)) | "
                    + "\(µs(med(name, \.typeQueryP50)))\(ratio(name, \.typeQueryP50)) | \(µs(med(name, \.filteredQueryP50)))\(ratio(name, \.filteredQueryP50)) |"
            )
        }
        if let baselineName = configurations.first?.name { print("\nratios against \(baselineName), measured in the same run") }
        guard let roundTrip else { return }
        print("\nWhere a PostgreSQL request's time goes (medians of rounds; `SELECT 1` round trip p50 \(µs(roundTrip)) in the same run):\n")
        print("| back end, scenario | per | wall time | PostgreSQL round trips | waiting on PostgreSQL | of which COMMIT | rest: HTTP, JSON, service |")
        print("|---|---|---|---|---|---|---|")
        for configuration in configurations {
            guard case .postgres = configuration.backend else { continue }
            let name = configuration.name
            func row(_ scenario: String, per: String, wall: Double, count: Double, _ key: (Figures) -> PostgresStatistics.Snapshot) {
                let trips = med(name) { Double(key($0).roundTrips) } / count
                let wait = med(name) { Double(key($0).waitNanoseconds) / 1000 } / count
                let commit = med(name) { Double(key($0).commitNanoseconds) / 1000 } / count
                let rest = max(0, wall - wait)
                print(
                    "| \(name), \(scenario) | \(per) | \(µs(wall)) | \(String(format: "%.1f", trips)) | \(µs(wait)) (\(percent(wait, wall))) | "
                        + "\(µs(commit)) (\(percent(commit, wall))) | \(µs(rest)) (\(percent(rest, wall))) |"
                )
            }
            row("1. batched create", per: "record", wall: 1e6 / med(name, \.creates), count: Double(settings.records), \.createPG)
            let pages = Double((results[name]?.first?.feedPages) ?? 1)
            row("2. change feed", per: "page of 200", wall: 1e6 / med(name, \.feed) * 200, count: pages, \.feedPG)
            row("4. conditional update", per: "request (mean)", wall: med(name, \.updateMean), count: Double(settings.updates), \.updatePG)
            // Concurrent: each request's latency is the clients' combined time divided by the requests.
            let requests = Double(settings.clients * settings.perClient)
            row(
                "5. concurrent creates", per: "request (latency)", wall: 1e6 / med(name, \.concurrent) * Double(settings.clients), count: requests,
                \.concurrentPG)
            row(
                "5z. concurrent creates, a zone each", per: "request (latency)", wall: 1e6 / med(name, \.concurrentZones) * Double(settings.clients),
                count: requests, \.concurrentZonesPG)
        }
        print(
            "\n\"waiting on PostgreSQL\" is summed over every connection, so with \(settings.clients) clients it is time the requests spent blocked, not a share of one CPU."
        )
    }

    private static func percent(_ part: Double, _ whole: Double) -> String {
        whole > 0 ? String(format: "%.0f%%", part / whole * 100) : "—"
    }
}
