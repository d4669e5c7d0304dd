import BenchSupport
import Foundation

/// `--auth web`: scenarios 4 (sequential conditional updates) and 5 (concurrent single creates)
/// with every request authenticated as a signed-in user — API token and web auth token, the
/// token rotated on every request as CloudKit JS does (``BenchClient``) — next to the same
/// scenarios in open mode, in the same run. Each round starts a fresh server per mode; the modes
/// alternate, and which goes first alternates by round.
///
/// Besides rates and latencies it reports the process's CPU time per request (the in-process
/// server and its client threads together, from `getrusage`), which moves far less than
/// throughput when other work shares the cores.
enum AuthComparison {
    struct Settings {
        var updates: Int
        var clients: Int
        var perClient: Int
        var threads: Int
        var rounds: Int
    }

    /// One round of one mode.
    struct Figures {
        var updatesPerSecond = 0.0, updateP50 = 0.0, updateP99 = 0.0, updateCPU = 0.0
        var concurrent = 0.0, concurrentCPU = 0.0
    }

    static func run(_ settings: Settings) async throws {
        _ = try await measure(webAuth: true, settings: Settings(updates: 200, clients: 2, perClient: 100, threads: settings.threads, rounds: 1), round: 0)
        _ = try await measure(webAuth: false, settings: Settings(updates: 200, clients: 2, perClient: 100, threads: settings.threads, rounds: 1), round: 0)
        var results: [Bool: [Figures]] = [:]
        for round in 1...settings.rounds {
            for webAuth in round % 2 == 1 ? [false, true] : [true, false] {
                let figures = try await measure(webAuth: webAuth, settings: settings, round: round)
                results[webAuth, default: []].append(figures)
                print(
                    "round \(round), \(webAuth ? "web auth" : "open mode"): \(settings.updates) updates \(grouped(figures.updatesPerSecond))/s "
                        + "(p50 \(µs(figures.updateP50)), \(µs(figures.updateCPU)) CPU each) | \(settings.clients) clients "
                        + "\(grouped(figures.concurrent))/s (\(µs(figures.concurrentCPU)) CPU each) | load average \(loadAverage())"
                )
            }
        }
        report(results, settings)
    }

    private static func measure(webAuth: Bool, settings: Settings, round: Int) async throws -> Figures {
        let server = try await BenchServer.start(threads: settings.threads, webAuth: webAuth)
        do {
            var figures = Figures()
            let client = try await server.connect()
            try server.createZone("r", client: client)
            let scenarios = Scenarios(client: client, zone: "r")
            _ = try scenarios.create(prefix: "r", count: 10, batch: 10)
            var cpu = processCPUSeconds()
            let start = monotonicNanoseconds()
            let latencies = try scenarios.conditionalUpdates(name: Payloads.name("r", 1), count: settings.updates)
            figures.updatesPerSecond = Double(settings.updates) / seconds(since: start)
            figures.updateCPU = (processCPUSeconds() - cpu) * 1e6 / Double(settings.updates)
            figures.updateP50 = percentile(latencies, 50)
            figures.updateP99 = percentile(latencies, 99)
            var sessions: [WebAuthAccount.Session] = []
            if let account = server.webAuth {
                for _ in 0..<settings.clients { sessions.append(try await account.newSession()) }
            }
            cpu = processCPUSeconds()
            figures.concurrent = try Scenarios.concurrentCreates(
                ports: [server.port], zones: ["r"], clients: settings.clients, perClient: settings.perClient, round: round, sessions: sessions
            )
            figures.concurrentCPU = (processCPUSeconds() - cpu) * 1e6 / Double(settings.clients * settings.perClient)
            await server.stop()
            return figures
        } catch {
            await server.stop()
            throw error
        }
    }

    private static func report(_ results: [Bool: [Figures]], _ settings: Settings) {
        func med(_ webAuth: Bool, _ key: (Figures) -> Double) -> Double { median((results[webAuth] ?? []).map(key)) }
        print("\n| scenario (medians of \(settings.rounds) rounds) | open mode | web auth, token rotated | web auth / open |")
        print("|---|---:|---:|---:|")
        let rows: [(String, (Figures) -> Double, (Double) -> String)] = [
            ("4. \(grouped(Double(settings.updates))) sequential conditional updates: requests/s", \.updatesPerSecond, grouped),
            ("4. p50", \.updateP50, µs),
            ("4. p99", \.updateP99, µs),
            ("4. process CPU per request (server + client)", \.updateCPU, µs),
            ("5. \(settings.clients) clients × \(settings.perClient) single creates: records/s", \.concurrent, grouped),
            ("5. process CPU per request (server + clients)", \.concurrentCPU, µs),
        ]
        for (name, key, format) in rows {
            let open = med(false, key)
            let web = med(true, key)
            print("| \(name) | \(format(open)) | \(format(web)) | \(String(format: "%.2f", web / open)) |")
        }
        print("\nload average at the end: \(loadAverage())")
    }
}
