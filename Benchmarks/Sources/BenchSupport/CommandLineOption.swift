import Foundation

/// `--name value` options of a benchmark executable.
///
/// ```swift
/// let rounds = CommandLineOption.integer("rounds", default: 3)   // `--rounds 5` → 5
/// ```
public enum CommandLineOption {
    /// The integer after `--name`, or `fallback` when absent or not a number.
    public static func integer(_ name: String, default fallback: Int) -> Int {
        let arguments = CommandLine.arguments
        guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count, let value = Int(arguments[index + 1]) else {
            return fallback
        }
        return value
    }
}

/// A benchmark that cannot go on: what went wrong, for people.
public struct BenchmarkFailure: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
    /// Creates a failure.
    public init(_ description: String) { self.description = description }
}
