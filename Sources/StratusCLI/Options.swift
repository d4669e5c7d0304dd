import Foundation

/// Command-line flags with `STRATUS_*` environment fallbacks, parsed by hand (no outside packages).
struct Options {
    private var values: [String: String] = [:]
    /// Every value of each flag, in order, for flags that may repeat.
    private var allValues: [String: [String]] = [:]
    private(set) var positional: [String] = []
    private let environment: [String: String]

    /// Parses `--name value`, `--name=value` and bare `--flag` words.
    init(arguments: ArraySlice<String>, environment: [String: String]) throws {
        self.environment = environment
        var words = arguments.makeIterator()
        while let word = words.next() {
            guard word.hasPrefix("--") else {
                positional.append(word)
                continue
            }
            let body = word.dropFirst(2)
            let name: String
            let value: String
            if let equals = body.firstIndex(of: "=") {
                (name, value) = (String(body[..<equals]), String(body[body.index(after: equals)...]))
            } else if Self.booleanFlags.contains(String(body)) {
                (name, value) = (String(body), "true")
            } else if let next = words.next() {
                (name, value) = (String(body), next)
            } else {
                throw CLIError("flag --\(body) needs a value")
            }
            values[name] = value
            allValues[name, default: []].append(value)
        }
    }

    private static let booleanFlags: Set = ["help", "open", "discoverable", "short", "password-stdin", "no-signup", "behind-proxy", "console-loopback-only"]

    /// The flag's value, else `STRATUS_<NAME>` from the environment, else `fallback`.
    func string(_ name: String, default fallback: String) -> String {
        values[name] ?? environment["STRATUS_" + name.uppercased().replacingOccurrences(of: "-", with: "_")] ?? fallback
    }

    /// Every value of a flag that may repeat, each split at commas (`--x a --x b,c` → `a, b, c`);
    /// else `STRATUS_<NAME>` split at commas; empty entries dropped.
    func list(_ name: String) -> [String] {
        let given = allValues[name] ?? environment["STRATUS_" + name.uppercased().replacingOccurrences(of: "-", with: "_")].map { [$0] } ?? []
        return given.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Like ``string(_:default:)``, parsed as an integer in `range`.
    func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws -> Int {
        let text = string(name, default: String(fallback))
        guard let value = Int(text), range.contains(value) else {
            throw CLIError("--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound); got '\(text)'")
        }
        return value
    }

    /// Whether a boolean flag was given (or its environment variable is `1`/`true`).
    func flag(_ name: String) -> Bool {
        ["1", "true", "yes"].contains(string(name, default: "false").lowercased())
    }

    /// Flags that were given but are not in `known`.
    func unknownFlags(known: Set<String>) -> [String] {
        values.keys.filter { !known.contains($0) }.sorted()
    }
}

/// A usage or configuration error, printed without a stack trace.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
