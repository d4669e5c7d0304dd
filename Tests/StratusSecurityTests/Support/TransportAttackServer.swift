import Foundation
import StratusTesting

/// A `stratus serve` child process on loopback, for attacks measured from outside the process:
/// its resident memory, its answers to many connections.
///
/// ```swift
/// try await TransportAttackServer.with(["--open"]) { server in
///     print(server.port, try server.peakResidentBytes())
/// }
/// ```
final class TransportAttackServer: Sendable {
    static let container = "iCloud.com.example.Attack"

    let process: SpawnedProcess
    let port: UInt16
    let directory: TemporaryDirectory

    private init(process: SpawnedProcess, port: UInt16, directory: TemporaryDirectory) {
        self.process = process
        self.port = port
        self.directory = directory
    }

    /// Runs `body` with a server started with `arguments`, and stops it afterwards, whatever happens.
    static func with<T: Sendable>(_ arguments: [String], _ body: (TransportAttackServer) async throws -> T) async throws -> T {
        let server = try await start(arguments)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// Creates a data directory with ``container`` and starts `stratus serve` on a free port with `arguments`.
    static func start(_ arguments: [String]) async throws -> TransportAttackServer {
        let stratus = try SpawnedCommand.builtExecutable("stratus")
        let directory = try TemporaryDirectory(prefix: "stratus-attack")
        let dataDirectory = directory.path("data")
        let created = try await SpawnedCommand.run(stratus, ["container", "create", container, "--data-dir", dataDirectory])
        guard created.status == 0 else { throw Failure(description: "container create failed: \(created.errorOutput)") }
        let output = directory.path("serve.out")
        let process = try SpawnedCommand.start(
            stratus, ["serve", "--port", "0", "--data-dir", dataDirectory, "--log-level", "error"] + arguments, environment: [:],
            standardOutput: output, standardError: directory.path("serve.err")
        )
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline, process.isRunning {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            if let port = Self.port(in: text) { return TransportAttackServer(process: process, port: port, directory: directory) }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.signal(SIGKILL)
        _ = try? await process.exitStatus()
        let errors = (try? String(contentsOfFile: directory.path("serve.err"), encoding: .utf8)) ?? ""
        throw Failure(description: "stratus serve did not report its port: \(errors)")
    }

    /// The port in `Stratus is running at http://127.0.0.1:PORT`.
    private static func port(in output: String) -> UInt16? {
        guard let range = output.range(of: "http://127.0.0.1:") else { return nil }
        return UInt16(output[range.upperBound...].prefix { $0.isNumber })
    }

    /// The most memory the process has held resident so far (`VmHWM`), in bytes.
    func peakResidentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { throw Failure(description: "no VmHWM in /proc/\(process.pid)/status") }
        return kilobytes << 10
    }

    /// Stops the server, waits for it to exit and removes its files.
    func stop() async {
        process.signal(SIGTERM)
        _ = try? await process.exitStatus()
        directory.remove()
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }
}
