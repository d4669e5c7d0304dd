import Foundation

/// Drives `wrk` (Debian's package) and reads its summary.
public enum Wrk {
    /// One wrk run's figures.
    public struct Result: Sendable {
        /// Requests per second.
        public var requestsPerSecond: Double
        /// Median latency in microseconds.
        public var p50: Double
        /// 99th-percentile latency in microseconds.
        public var p99: Double
        /// Non-2xx responses and socket errors seen.
        public var errors: Int
    }

    /// Runs `wrk -t2 -c<connections> -d<seconds>s --latency <url>` and parses the result.
    public static func run(url: String, connections: Int, seconds: Int, threads: Int = 2) throws -> Result {
        let output = try Shell.run("/usr/bin/wrk", ["-t\(min(threads, connections))", "-c\(connections)", "-d\(seconds)s", "--latency", url])
        func value(after label: String) -> String? {
            guard let line = output.split(separator: "\n").first(where: { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }) else { return nil }
            return line.trimmingCharacters(in: .whitespaces).dropFirst(label.count).trimmingCharacters(in: .whitespaces)
                .split(separator: " ").first.map(String.init)
        }
        guard let rps = value(after: "Requests/sec:").flatMap(Double.init),
            let p50 = value(after: "50%").flatMap(microseconds), let p99 = value(after: "99%").flatMap(microseconds)
        else { throw Shell.Failure(description: "could not read wrk output:\n\(output)") }
        var errors = 0
        for line in output.split(separator: "\n") {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("Non-2xx or 3xx responses:"), let count = Int(text.split(separator: " ").last ?? "") { errors += count }
            if text.hasPrefix("Socket errors:") {
                errors += text.split(separator: ",").compactMap { Int($0.split(separator: " ").last ?? "") }.reduce(0, +)
            }
        }
        return Result(requestsPerSecond: rps, p50: p50, p99: p99, errors: errors)
    }

    /// Converts wrk's `16.00us` / `1.20ms` / `2.00s` into microseconds.
    static func microseconds(_ text: String) -> Double? {
        for (suffix, scale) in [("us", 1.0), ("ms", 1000.0), ("s", 1_000_000.0)] where text.hasSuffix(suffix) {
            return Double(text.dropLast(suffix.count)).map { $0 * scale }
        }
        return nil
    }
}

/// Runs commands and reads their output.
public enum Shell {
    /// A command that failed.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// Runs `path` with `arguments` to completion and returns standard output.
    ///
    /// - Parameter environment: Variables to set in the child, beside this process's own.
    public static func run(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(path) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// Median of a non-empty list.
public func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Formats a number with a thousands separator and no decimals.
public func grouped(_ value: Double) -> String {
    let whole = Int(value.rounded())
    let digits = String(abs(whole))
    var out = ""
    for (index, character) in digits.enumerated() {
        if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
        out.append(character)
    }
    return (whole < 0 ? "-" : "") + out
}
