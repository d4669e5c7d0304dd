import Foundation
@testable import StratusServer
import StratusTesting
import Testing

/// An idle watcher costs about nothing (issue 22, #13): `stratus watch` and `stratus docs sync` with pushes
/// on park a courier long-poll, and a parked poll must not spin. Measured on the real executable, in a
/// process of its own (this test process runs other suites at the same time), from `/proc/<pid>/stat`.
@Suite(.serialized) struct IdleWatcherTests {
    @Test(arguments: ["watch", "docs"]) func anIdleWatcherWithPushesUsesAlmostNoCPU(_ command: String) async throws {
        let server = try await TestCloudKitServer.startAuthenticated()
        try await stoppingAfterUse(server, stop: { await $0.stop() }) { server in
            let user = try await server.signedInUser("idle@example.com")
            let directory = try TemporaryDirectory(prefix: "idle-watcher")
            defer { directory.remove() }
            let flags = [
                "--server", server.http.url("").absoluteString, "--container", TestCloudKitServer.container,
                "--api-token", user.apiToken, "--web-auth-token", user.webAuthToken,
            ]
            let arguments = command == "watch" ? ["watch"] : ["docs", "sync", directory.path("folder")]
            let output = directory.path("out")
            let child = try SpawnedCommand.start(
                try StratusChildProcess.executable().path, arguments + flags, environment: [:], standardOutput: output,
                standardError: directory.path("err"))
            defer {
                child.signal(SIGKILL)
                _ = try? child.wait()
            }
            if command == "docs" {
                #expect(await eventually(timeout: .seconds(120)) { ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("watching") })
            }
            // Start-up (dynamic loading, token, subscription, first sync) costs CPU, and on a loaded
            // machine it may take a minute: measure from the moment the watcher's long-poll is parked
            // on the server (an event, not a guess at how long start-up takes), and check that it is
            // still the one parked poll at the end — a spinning poll or a hot retry loop shows either way.
            let courier = server.service.courier
            #expect(await eventually(timeout: .seconds(120)) { courier.waiters.count == 1 }, "the watcher never parked a poll")
            let before = try Self.cpuSeconds(of: child.pid)
            let started = ContinuousClock.now
            try await Task.sleep(for: .seconds(3))
            let used = try Self.cpuSeconds(of: child.pid) - before
            let elapsed = (ContinuousClock.now - started).components
            let share = used / (Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
            #expect(child.isRunning)
            #expect(courier.waiters.count == 1, "the watcher's poll did not stay parked")
            #expect(share < 0.05, "an idle \(command) used \(Int(share * 100))% of a core")
        }
    }

    /// User plus system CPU time of a process, in seconds.
    static func cpuSeconds(of pid: pid_t) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The command name (field 2) is in parentheses and may hold spaces: count fields after it.
        guard let close = stat.lastIndex(of: ")") else { throw CocoaError(.fileReadCorruptFile) }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
