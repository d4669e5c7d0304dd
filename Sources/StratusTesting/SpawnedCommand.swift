import Foundation

/// Runs a short command with `posix_spawn` and waits for it, without Foundation's `Process`.
///
/// `Process.run()` was seen crashing (a bad `memcpy` inside it) while other tests ran
/// in parallel on Linux, even with launches serialized; short helper commands such
/// as `openssl` go through this instead. Standard output and standard error are
/// captured in temporary files.
///
/// ```swift
/// let result = try SpawnedCommand.run("/usr/bin/openssl", ["version"])
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

    /// Runs `executable` with `arguments` in `directory` (if given, via `/usr/bin/env -C`) and an empty environment.
    public static func run(_ executable: String, _ arguments: [String], in directory: String? = nil) throws -> Result {
        let program = directory == nil ? executable : "/usr/bin/env"
        let argv = [program] + (directory.map { ["-C", $0, executable] } ?? []) + arguments
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)").path
        let outputPath = scratch + ".out"
        let errorPath = scratch + ".err"
        defer {
            unlink(outputPath)
            unlink(errorPath)
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)

        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var environment: [UnsafeMutablePointer<CChar>?] = [nil]
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, program, &actions, nil, &cArguments, &environment)
        guard spawned == 0 else {
            throw Failure(description: "posix_spawn \(program) failed: \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw Failure(description: "waitpid failed: \(String(cString: strerror(errno)))") }
        }
        let exited = (status & 0x7f) == 0
        let code = exited ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let errorOutput = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        return Result(status: code, output: output, errorOutput: errorOutput)
    }
}
