public import Foundation
import Synchronization

/// Runs a short command with `posix_spawn` and waits for it, without Foundation's `Process`.
///
/// `Process.run()` was seen crashing (a bad `memcpy` inside it) while other tests ran
/// in parallel on Linux, even with launches serialized; short helper commands such
/// as `openssl` go through this instead. Standard output and standard error are
/// captured in temporary files.
///
/// ```swift
/// let result = try await SpawnedCommand.run("/usr/bin/openssl", ["version"])
/// #expect(result.status == 0)
/// ```
public enum SpawnedCommand {
    /// What the command did.
    public struct Result: Sendable {
        /// The exit status (or 128 + the signal that ended it).
        public var status: Int32
        /// Standard output.
        public var output: String
        /// Standard error.
        public var errorOutput: String
    }

    /// Why a command could not be run.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed.
        public var description: String
    }

    /// Runs `executable` with `arguments` in `directory` (if given, via `/usr/bin/env -C`) and waits for it.
    ///
    /// The wait happens on a thread of its own, never on Swift's cooperative pool: the suite runs
    /// its tests in parallel on that pool (two threads on two cores), and a test blocked in
    /// `waitpid` there stalls every other test's timers and I/O.
    ///
    /// - Parameter environment: The child's whole environment (empty by default).
    public static func run(
        _ executable: String, _ arguments: [String], in directory: String? = nil, environment: [String: String] = [:]
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(with: Swift.Result { try runBlocking(executable, arguments, in: directory, environment: environment) })
            }.start()
        }
    }

    /// ``run(_:_:in:environment:)`` on the calling thread, blocking it until the command ends: only
    /// for commands that take milliseconds (such as `openssl` in synchronous tests).
    ///
    /// - Parameter environment: The child's whole environment (empty by default).
    public static func runBlocking(
        _ executable: String, _ arguments: [String], in directory: String? = nil, environment: [String: String] = [:]
    ) throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)").path
        let outputPath = scratch + ".out"
        let errorPath = scratch + ".err"
        defer {
            unlink(outputPath)
            unlink(errorPath)
        }
        let program = directory == nil ? executable : "/usr/bin/env"
        let child = try start(
            program, (directory.map { ["-C", $0, executable] } ?? []) + arguments, environment: environment,
            standardOutput: outputPath, standardError: errorPath
        )
        let status = try child.wait()
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let errorOutput = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        return Result(status: status, output: output, errorOutput: errorOutput)
    }

    /// The sanitizers' settings of this process (`ASAN_OPTIONS`…), which every child gets even when
    /// given an environment of its own: without them a child built with AddressSanitizer runs
    /// LeakSanitizer at exit, exits 1 on the Swift runtime's deliberate leaks, and writes its
    /// reports where `Scripts/test-sanitized.sh` does not look.
    static let sanitizerSettings = ProcessInfo.processInfo.environment.filter {
        ["ASAN_OPTIONS", "TSAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS"].contains($0.key)
    }

    /// Starts `executable` with its standard output and error written to files, and returns at once.
    ///
    /// - Parameter environment: The child's whole environment, plus this process's sanitizer settings
    ///   where it has none of its own.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String], standardOutput: String, standardError: String
    ) throws -> SpawnedProcess {
        let environment = environment.merging(sanitizerSettings) { given, _ in given }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, standardOutput, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, standardError, O_WRONLY | O_CREAT | O_APPEND, 0o600)

        var cArguments: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var cEnvironment: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { cEnvironment.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, &cArguments, &cEnvironment)
        guard spawned == 0 else {
            throw Failure(description: "posix_spawn \(executable) failed: \(String(cString: strerror(spawned)))")
        }
        return SpawnedProcess(pid: pid)
    }
}

/// A child started by ``SpawnedCommand/start(_:_:environment:standardOutput:standardError:)``.
public final class SpawnedProcess: Sendable {
    /// The child's process ID.
    public let pid: pid_t
    private let exitStatus = Mutex<Int32?>(nil)

    init(pid: pid_t) { self.pid = pid }

    /// Whether the child still runs (reaps it if it has ended).
    public var isRunning: Bool {
        if exitStatus.withLock({ $0 }) != nil { return false }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        guard result == pid else { return result == 0 }
        exitStatus.withLock { $0 = Self.decode(status) }
        return false
    }

    /// Sends `signal` (SIGTERM by default).
    public func signal(_ signal: Int32 = SIGTERM) {
        guard isRunning else { return }
        kill(pid, signal)
    }

    /// Waits for the child to end, on a thread of its own (not Swift's cooperative pool), and returns
    /// its exit status (128 + signal when a signal ended it).
    public func exitStatus() async throws -> Int32 {
        if let status = terminationStatus { return status }
        return try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try self.wait() }) }.start()
        }
    }

    /// Waits for the child to end, blocking the calling thread, and returns its exit status (128 +
    /// signal when a signal ended it). In async code use ``exitStatus()``, except right after
    /// `SIGKILL`, when the wait is immediate.
    public func wait() throws -> Int32 {
        if let status = exitStatus.withLock({ $0 }) { return status }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                throw SpawnedCommand.Failure(description: "waitpid failed: \(String(cString: strerror(errno)))")
            }
        }
        let decoded = Self.decode(status)
        exitStatus.withLock { $0 = decoded }
        return decoded
    }

    /// The exit status once the child ended, else `nil`.
    public var terminationStatus: Int32? { exitStatus.withLock { $0 } }

    private static func decode(_ status: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }
}

extension SpawnedCommand {
    /// The path of an executable this package builds: beside the test bundle, else in `.build/debug`.
    ///
    /// ```swift
    /// let stratus = try SpawnedCommand.builtExecutable("stratus")
    /// ```
    ///
    /// - Parameters:
    ///   - name: The product's name.
    ///   - filePath: A file two directories below the package root (the calling test's `#filePath`).
    /// - Returns: The path.
    /// - Throws: ``Failure`` when it has not been built.
    public static func builtExecutable(_ name: String, filePath: String = #filePath) throws -> String {
        let besideTests = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
        let root = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [besideTests, root.appendingPathComponent(".build/debug/\(name)")]
        guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw Failure(description: "the \(name) executable was not found; run `swift build` first")
        }
        return executable.path
    }
}
