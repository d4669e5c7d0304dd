import Foundation
import StratusTesting

/// Runs the system `openssl` tool in a private temporary directory, for interop tests.
final class OpenSSLCommandLine {
    static let executable = URL(fileURLWithPath: "/usr/bin/openssl")
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: executable.path) }

    struct Output {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// The scratch directory; removed in `deinit`.
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("stratus-crypto-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    func write(_ data: Data, to name: String) throws {
        try data.write(to: directory.appendingPathComponent(name))
    }

    func read(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    /// Runs `openssl <arguments>` in the scratch directory and waits for it.
    @discardableResult
    func run(_ arguments: [String]) throws -> Output {
        let result = try SpawnedCommand.runBlocking(Self.executable.path, arguments, in: directory.path)
        return Output(status: result.status, standardOutput: result.output, standardError: result.errorOutput)
    }

    /// Runs `openssl <arguments>` and fails the caller if it exits non-zero.
    @discardableResult
    func runChecked(_ arguments: [String]) throws -> Output {
        let output = try run(arguments)
        guard output.status == 0 else {
            throw Failure(
                description: "openssl \(arguments.joined(separator: " ")) exited \(output.status): \(output.standardError)")
        }
        return output
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }
}
