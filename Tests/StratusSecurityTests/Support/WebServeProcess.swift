import Foundation
import StratusTesting

/// `stratus serve` as a child process, for attacks on what only the executable composes
/// (CORS, start-up refusals), and `stratus` admin commands on its data directory.
final class WebServeProcess: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// The exit status, when the server exited.
        var status: Int32?
    }

    let port: UInt16
    let directory: TemporaryDirectory
    private let process: SpawnedProcess

    private init(port: UInt16, directory: TemporaryDirectory, process: SpawnedProcess) {
        self.port = port
        self.directory = directory
        self.process = process
    }

    /// The data directory the server (and ``stratus(_:in:)``) use.
    var dataDirectory: String { directory.path("data") }

    /// The server's process ID (to read its `/proc` entries).
    var pid: pid_t { process.pid }

    /// What the server wrote to standard error so far (its log).
    var log: String { (try? String(contentsOfFile: directory.path("stderr"), encoding: .utf8)) ?? "" }

    /// Runs `stratus <arguments> --data-dir <data>` to completion.
    static func stratus(_ arguments: [String], dataDirectory: String, filePath: String = #filePath) async throws -> SpawnedCommand.Result {
        let executable = try SpawnedCommand.builtExecutable("stratus", filePath: filePath)
        return try await SpawnedCommand.run(executable, arguments + ["--data-dir", dataDirectory], environment: ProcessInfo.processInfo.environment)
    }

    /// Starts `stratus serve --port 0 <arguments>` on a fresh data directory and waits for its URL.
    static func start(_ arguments: [String], filePath: String = #filePath) async throws -> WebServeProcess {
        let directory = try TemporaryDirectory(prefix: "stratus-web-attack")
        let output = directory.path("stdout")
        let process = try SpawnedCommand.start(
            try SpawnedCommand.builtExecutable("stratus", filePath: filePath),
            ["serve", "--port", "0", "--data-dir", directory.path("data"), "--threads", "2", "--log-level", "warning"] + arguments,
            environment: ProcessInfo.processInfo.environment, standardOutput: output, standardError: directory.path("stderr")
        )
        // A loaded machine can take many seconds to start a child; a healthy one prints its URL in well under one.
        let deadline = ContinuousClock.now + .seconds(45)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            if let port = port(in: text) { return WebServeProcess(port: port, directory: directory, process: process) }
            guard process.isRunning else {
                let errors = (try? String(contentsOfFile: directory.path("stderr"), encoding: .utf8)) ?? ""
                directory.remove()
                throw Failure(
                    description: "stratus serve exited (\(process.terminationStatus ?? -1)) without printing its URL: \(errors)",
                    status: process.terminationStatus)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.signal(SIGKILL)
        _ = try? await process.exitStatus()
        directory.remove()
        throw Failure(description: "stratus serve printed no URL within 45 s")
    }

    /// Starts `stratus serve --port 0 <arguments>`, runs `body` with it, and stops it whatever happens.
    static func with(_ arguments: [String], filePath: String = #filePath, _ body: (WebServeProcess) async throws -> Void) async throws {
        try await stoppingAfterUse(try await start(arguments, filePath: filePath), stop: { await $0.stop() }, body)
    }

    /// Runs `stratus serve <arguments>` expecting it to refuse to start; returns its exit status and standard error.
    ///
    /// A server that starts anyway is killed once it prints its URL, and reported as status 0.
    static func refusal(_ arguments: [String], filePath: String = #filePath) async throws -> (status: Int32, errors: String) {
        do {
            let started = try await start(arguments, filePath: filePath)
            await started.stop()
            return (0, "")
        } catch let failure as Failure where failure.status != nil {
            return (failure.status ?? 1, failure.description)
        }
    }

    private static func port(in text: String) -> UInt16? {
        let marker = text.range(of: "Stratus is running at http://") ?? text.range(of: "Stratus is running at https://")
        guard let start = marker?.upperBound else { return nil }
        let rest = text[start...]
        guard let colon = rest.range(of: "]:")?.upperBound ?? rest.firstIndex(of: ":").map({ rest.index(after: $0) }) else { return nil }
        let digits = rest[colon...].prefix { $0.isNumber }
        guard rest[colon...].count > digits.count else { return nil }
        return UInt16(digits)
    }

    /// Sends a signal to the server (SIGHUP to reload its certificate).
    func signal(_ number: Int32) {
        process.signal(number)
    }

    /// Sends raw bytes to the server and returns the status and head.
    func exchange(_ request: String) async throws -> RawHTTPConnection.Reply {
        try await RawHTTPConnection.exchange(port: port, request)
    }

    /// Stops the server and removes its data.
    func stop() async {
        process.signal(SIGTERM)
        for _ in 0..<500 where process.isRunning {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if process.isRunning {
            process.signal(SIGKILL)
            _ = try? await process.exitStatus()
        }
        directory.remove()
    }
}
