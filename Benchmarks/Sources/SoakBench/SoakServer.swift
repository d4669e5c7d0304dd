import BenchSupport
import Foundation

/// The real `stratus serve` in a child process, with a data directory of its own: a container,
/// a user with a password, an API token and web auth tokens made by the `stratus` commands
/// before it starts, so the sampled RSS, descriptors and threads are the server's alone.
///
/// ```swift
/// let server = try SoakServer.start(stratus: ".build/release/stratus", extraFlags: [])
/// defer { server.stop() }
/// let usage = try server.usage()
/// ```
final class SoakServer {
    static let container = "iCloud.com.example.Soak"
    static let email = "soak@example.com"
    static let password = "correct horse battery staple"

    let stratus: String
    let dataDirectory: URL
    let apiToken: String
    let port: UInt16
    private let process: Process

    private init(stratus: String, dataDirectory: URL, apiToken: String, port: UInt16, process: Process) {
        self.stratus = stratus
        self.dataDirectory = dataDirectory
        self.apiToken = apiToken
        self.port = port
        self.process = process
    }

    /// Makes the data directory, its account and tokens, and starts `stratus serve --port 0` on it.
    ///
    /// - Parameter extraFlags: More `serve` flags, after the benchmark's own (a later flag wins).
    static func start(stratus: String, extraFlags: [String]) throws -> SoakServer {
        guard FileManager.default.isExecutableFile(atPath: stratus) else {
            throw BenchmarkFailure("no stratus executable at \(stratus): build it (see Benchmarks/README.md, \"Soak\") or pass --stratus PATH")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("soak-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let data = ["--data-dir", directory.path]
        _ = try Shell.run(stratus, ["container", "create", container] + data)
        _ = try Shell.run(stratus, ["user", "create", email] + data, environment: ["STRATUS_PASSWORD": password])
        let apiToken = try lastLine(Shell.run(stratus, ["token", "create", container, "--name", "soak"] + data))
        let output = directory.appendingPathComponent("serve.out")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: stratus)
        process.arguments =
            ["serve", "--port", "0", "--threads", "4", "--log-level", "warning", "--requests-per-second", "0"] + data + extraFlags
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else { throw BenchmarkFailure("cannot write \(output.path)") }
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.standardError
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, process.isRunning {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if let port = port(in: text) {
                return SoakServer(stratus: stratus, dataDirectory: directory, apiToken: apiToken, port: port, process: process)
            }
            usleep(20_000)
        }
        process.terminate()
        throw BenchmarkFailure("stratus serve printed no URL within 60 s (or exited with \(process.isRunning ? "—" : "\(process.terminationStatus)"))")
    }

    /// A web auth token for the soak's user, from `stratus user token` (a session of its own, kept signed in).
    func webAuthToken() throws -> String {
        try Self.lastLine(Shell.run(stratus, ["user", "token", Self.email, Self.container, "--data-dir", dataDirectory.path]))
    }

    /// The server's process ID.
    var pid: Int32 { process.processIdentifier }

    /// Stops the server (SIGTERM, a clean shutdown) and removes its data directory.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// What the server process holds now: resident memory, open descriptors and threads.
    struct Usage {
        var rssKB: Int
        var fds: Int
        var threads: Int
    }

    /// Reads /proc: the least RSS of five readings 200 ms apart (so a transient buffer, such as a
    /// password hash's 64 MiB, does not pass for growth), and the descriptors and threads of the last.
    func usage() throws -> Usage {
        var rss = Int.max
        var threads = 0
        for reading in 0..<5 {
            if reading > 0 { usleep(200_000) }
            let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
            rss = min(rss, Self.field("VmRSS", in: status))
            threads = Self.field("Threads", in: status)
        }
        let fds = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
        return Usage(rssKB: rss, fds: fds, threads: threads)
    }

    /// The number in a `/proc/PID/status` line such as `VmRSS:   123456 kB`.
    private static func field(_ name: String, in status: String) -> Int {
        let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
        return Int(line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") ?? -1
    }

    /// The port in "Stratus is running at http://127.0.0.1:PORT …".
    private static func port(in text: String) -> UInt16? {
        guard let start = text.range(of: "Stratus is running at http://127.0.0.1:")?.upperBound else { return nil }
        let digits = text[start...].prefix { $0.isNumber }
        guard text[start...].count > digits.count else { return nil }
        return UInt16(digits)
    }

    private static func lastLine(_ text: String) throws -> String {
        guard let line = text.split(separator: "\n").last.map({ $0.trimmingCharacters(in: .whitespaces) }), !line.isEmpty else {
            throw BenchmarkFailure("a stratus command printed nothing")
        }
        return line
    }
}
