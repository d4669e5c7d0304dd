import Foundation
import StratusServer
import StratusTesting
import Testing

/// An idle watcher costs about nothing (issue 22, #13): `stratus watch` and `stratus docs sync` with pushes
/// on park a courier long-poll, and a parked poll must not spin. Measured on the real executable, in a
/// process of its own (this test process runs other suites at the same time), from `/proc/<pid>/stat`.
@Suite(.serialized) struct IdleWatcherTests {
    @Test(arguments: ["watch", "docs"]) func anIdleWatcherWithPushesUsesAlmostNoCPU(_ command: String) async throws {
        let server = try await TestCloudKitServer.startAuthenticated()
        try await stoppingAfterUse(server, stop: Self.stop) { server in
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
                #expect(await eventually { ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("watching") })
            }
            // Start-up (dynamic loading, token, subscription, first sync) costs CPU: wait until a second goes
            // by nearly idle (at most 15 s — a spinning poll never does), then measure. On a loaded machine
            // start-up may take long; a parked poll that spins shows in the window after it either way.
            let quiet = ContinuousClock.now + .seconds(15)
            while ContinuousClock.now < quiet {
                let start = try Self.cpuSeconds(of: child.pid)
                try await Task.sleep(for: .seconds(1))
                if try Self.cpuSeconds(of: child.pid) - start < 0.03 { break }
            }
            let before = try Self.cpuSeconds(of: child.pid)
            let started = ContinuousClock.now
            try await Task.sleep(for: .seconds(3))
            let used = try Self.cpuSeconds(of: child.pid) - before
            let elapsed = (ContinuousClock.now - started).components
            let share = used / (Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18)
            #expect(child.isRunning)
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

    private static func stop(_ server: TestCloudKitServer) async {
        server.service.beginShutdown()
        try? await Task.sleep(for: .milliseconds(300))
        await server.stop()
    }
}
