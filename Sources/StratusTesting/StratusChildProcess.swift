public import Foundation
import Synchronization

/// The real `stratus` executable run as a child process, for tests that kill it.
///
/// ```swift
/// let child = try await StratusChildProcess.serve(dataDirectory: directory.path("data"), logPath: directory.path("log"))
/// defer { child.killHard() }
/// // … requests to 127.0.0.1:\(child.port) …
/// ```
public final class StratusChildProcess: Sendable {
    /// Why the child could not be found, started or run.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    /// The built `stratus` binary: next to the test bundle (`swift build` puts every product in one
    /// directory), else `.build/debug/stratus` under the package root.
    public static func executable() throws -> URL {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("stratus")
        // This file is Sources/StratusTesting/StratusChildProcess.swift under the package root.
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let inBuildDirectory = packageRoot.appendingPathComponent(".build/debug/stratus")
        for candidate in [besideTests, inBuildDirectory] where FileManager.default.isExecutableFile(atPath: candidate.path) {
            return candidate
        }
        throw Failure(
            description:
                "the stratus executable was not found at \(besideTests.path) or \(inBuildDirectory.path); run `swift build` (or `make test`) before the tests"
        )
    }

    /// Runs `stratus <arguments>` to completion and returns its standard output.
    public static func run(_ arguments: [String]) async throws -> String {
        let result = try await runAllowingFailure(arguments)
        guard result.status == 0 else {
            throw Failure(description: "stratus \(arguments.joined(separator: " ")) exited with \(result.status): \(result.errors)")
        }
        return result.output
    }

    /// Runs `stratus <arguments>` to completion and returns its exit status, standard output and standard error.
    public static func runAllowingFailure(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        let result = try await SpawnedCommand.run(try executable().path, arguments, environment: ProcessInfo.processInfo.environment)
        return (result.status, result.output, result.errorOutput)
    }

    private let process: SpawnedProcess
    /// The port the child's server listens on.
    public let port: UInt16
    /// Where the child's standard error goes.
    public let logPath: String

    private init(process: SpawnedProcess, port: UInt16, logPath: String) {
        self.process = process
        self.port = port
        self.logPath = logPath
    }

    /// Starts `stratus serve --port 0` on `dataDirectory` and waits for the URL it prints.
    ///
    /// - Parameter arguments: More flags for `serve`, e.g. `["--database", url]`.
    public static func serve(dataDirectory: String, logPath: String, arguments: [String] = []) async throws -> StratusChildProcess {
        // NB: posix_spawn rather than Foundation's Process, whose run() was seen crashing under parallel tests.
        let outputPath = logPath + ".stdout"
        let process = try SpawnedCommand.start(
            try executable().path,
            ["serve", "--open", "--port", "0", "--data-dir", dataDirectory, "--threads", "4", "--log-level", "warning", "--requests-per-second", "0"]
                + arguments,
            environment: ProcessInfo.processInfo.environment, standardOutput: outputPath, standardError: logPath
        )
        // A loaded machine (the suite runs in parallel on 2 cores, builds beside it) can take
        // many seconds to start a child; a healthy one prints its URL in well under one.
        let deadline = ContinuousClock.now + .seconds(45)
        while ContinuousClock.now < deadline {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            if let port = Self.port(in: text) {
                return StratusChildProcess(process: process, port: port, logPath: logPath)
            }
            guard process.isRunning else {
                let errors = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
                throw Failure(description: "stratus serve exited without printing its URL; stdout: \(text); stderr: \(errors)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.signal(SIGKILL)
        _ = try? process.wait()
        throw Failure(description: "stratus serve printed no URL within 45 s")
    }

    /// The port in "Stratus is running at http://127.0.0.1:PORT …" (or https).
    public static func port(in text: String) -> UInt16? {
        let markers = ["Stratus is running at http://127.0.0.1:", "Stratus is running at https://127.0.0.1:"]
        guard let start = markers.lazy.compactMap({ text.range(of: $0)?.upperBound }).first else { return nil }
        let digits = text[start...].prefix { $0.isNumber }
        guard text[start...].count > digits.count else { return nil }  // the line may still be arriving
        return UInt16(digits)
    }

    /// Sends SIGKILL and waits for the child to die: no shutdown code runs.
    public func killHard() {
        guard process.isRunning else { return }
        process.signal(SIGKILL)
        _ = try? process.wait()
    }

    /// Stops the child with SIGTERM (a clean shutdown), killing it if it does not exit in 5 s.
    public func stop() async {
        guard process.isRunning else { return }
        process.signal(SIGTERM)
        for _ in 0..<500 where process.isRunning {
            try? await Task.sleep(for: .milliseconds(10))
        }
        killHard()
    }

    /// Whether the child was ended by SIGKILL.
    public var wasKilled: Bool {
        !process.isRunning && process.terminationStatus == 128 + SIGKILL
    }
}
