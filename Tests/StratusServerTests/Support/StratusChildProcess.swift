import Foundation
import StratusTesting
import Synchronization

/// The real `stratus` executable run as a child process, for tests that kill it.
final class StratusChildProcess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The built `stratus` binary: next to the test bundle (`swift build` puts every product in one
    /// directory), else `.build/debug/stratus` under the package root.
    static func executable(filePath: String = #filePath) throws -> URL {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("stratus")
        let packageRoot = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let inBuildDirectory = packageRoot.appendingPathComponent(".build/debug/stratus")
        for candidate in [besideTests, inBuildDirectory] where FileManager.default.isExecutableFile(atPath: candidate.path) {
            return candidate
        }
        throw Failure(
            description: "the stratus executable was not found at \(besideTests.path) or \(inBuildDirectory.path); run `swift build` (or `make test`) before the tests"
        )
    }

    /// Runs `stratus <arguments>` to completion and returns its standard output.
    static func run(_ arguments: [String]) throws -> String {
        let result = try runAllowingFailure(arguments)
        guard result.status == 0 else {
            throw Failure(description: "stratus \(arguments.joined(separator: " ")) exited with \(result.status): \(result.errors)")
        }
        return result.output
    }

    /// Runs `stratus <arguments>` to completion and returns its exit status, standard output and standard error.
    static func runAllowingFailure(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try ChildProcessLauncher.launch(process)
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    private let process: Process
    /// The port the child's server listens on.
    let port: UInt16
    /// Where the child's standard error goes.
    let logPath: String

    private init(process: Process, port: UInt16, logPath: String) {
        self.process = process
        self.port = port
        self.logPath = logPath
    }

    /// Starts `stratus serve --port 0` on `dataDirectory` and waits for the URL it prints.
    static func serve(dataDirectory: String, logPath: String) async throws -> StratusChildProcess {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = ["serve", "--open", "--port", "0", "--data-dir", dataDirectory, "--threads", "4", "--log-level", "warning", "--requests-per-second", "0"]
        let output = Pipe()
        process.standardOutput = output
        guard FileManager.default.createFile(atPath: logPath, contents: nil) else {
            throw Failure(description: "cannot create the log file \(logPath)")
        }
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        try ChildProcessLauncher.launch(process)
        let pid = process.processIdentifier
        // A watchdog: a child that never prints its URL is killed, which ends the read below.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(10))
            kill(pid, SIGKILL)
        }
        defer { watchdog.cancel() }
        let port = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<UInt16, any Error>) in
            let reader = Thread {
                let handle = output.fileHandleForReading
                var text = ""
                var resumed = false
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    guard !resumed else { continue }  // keep draining so the child never blocks on a full pipe
                    text += String(decoding: chunk, as: UTF8.self)
                    if let port = Self.port(in: text) {
                        continuation.resume(returning: port)
                        resumed = true
                    }
                }
                if !resumed {
                    continuation.resume(throwing: Failure(description: "stratus serve exited without printing its URL; stdout: \(text)"))
                }
            }
            reader.start()
        }
        return StratusChildProcess(process: process, port: port, logPath: logPath)
    }

    /// The port in "Stratus is running at http://127.0.0.1:PORT …".
    static func port(in text: String) -> UInt16? {
        let marker = "Stratus is running at http://127.0.0.1:"
        guard let start = text.range(of: marker)?.upperBound else { return nil }
        let digits = text[start...].prefix { $0.isNumber }
        guard text[start...].count > digits.count else { return nil }  // the line may still be arriving
        return UInt16(digits)
    }

    /// Sends SIGKILL and waits for the child to die: no shutdown code runs.
    func killHard() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Stops the child with SIGTERM (a clean shutdown), killing it if it does not exit in 5 s.
    func stop() async {
        guard process.isRunning else { return }
        process.terminate()
        for _ in 0..<500 where process.isRunning {
            try? await Task.sleep(for: .milliseconds(10))
        }
        killHard()
    }

    /// Whether the child was ended by SIGKILL.
    var wasKilled: Bool {
        !process.isRunning && process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
    }
}
