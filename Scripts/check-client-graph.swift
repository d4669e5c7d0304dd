// Checks that the client products build in an Apple-platform app with nothing but the OS
// (Documentation/0014): run by `make test` through Scripts/check-client-graph.sh.
//
//   swift Scripts/check-client-graph.swift <dump-package.json> [<repository root>]
//
// Reads the package graph (`swift package dump-package`) and fails when a client product reaches
// a server-only module or C library on any platform, or OpenSSL on an Apple platform (it must be a
// dependency conditioned to Linux). With a repository root it also scans the client modules'
// sources for imports of platform-only modules outside `#if canImport(…)` / `#if os(…)`.
// Exit status 0 when everything holds, 1 with one line per problem otherwise.
import Foundation

/// The products an app links (issue 21).
let clientProducts = [
    "StratusClient", "StratusKeyValue", "StratusDocuments", "StratusSync", "StratusStoreSync", "StratusStore", "StratusWire",
    "StratusSQLite",
]
/// C libraries a client may link: the SDK's SQLite everywhere; on Linux only, OpenSSL's libcrypto and
/// libcurl (the SDK's transport there, `StratusCurl`; FoundationNetworking links it into every Linux
/// client process anyway).
let clientCLibraries: [String: Set<Platform>] = ["CSQLite": [.apple, .linux], "COpenSSL": [.linux], "CCurl": [.linux]]
/// Swift modules only the server (or its tools and tests) may use.
let serverOnlyModules: Set<String> = ["StratusServerCrypto", "StratusHTTPServer", "StratusPostgres", "StratusTesting", "StratusCLI"]
/// Modules that exist on some platforms only; an import of one must be inside `#if canImport(…)` or `#if os(…)`.
let platformOnlyModules: Set<String> = [
    "Darwin", "CryptoKit", "Security", "SQLite3", "os", "ObjectiveC", "UIKit", "AppKit", "Glibc", "Musl", "Bionic", "Android",
    "FoundationNetworking", "FoundationXML", "WinSDK", "ucrt", "WASILibc",
]

enum Platform: String, CaseIterable {
    case apple, linux

    /// Whether a dependency condition (`platformNames`, empty or absent for none) lets the edge exist here.
    func admits(_ names: [String]?) -> Bool {
        guard let names, !names.isEmpty else { return true }
        let apple: Set<String> = ["macos", "maccatalyst", "ios", "tvos", "watchos", "visionos", "driverkit"]
        return names.contains { self == .apple ? apple.contains($0) : $0 == "linux" }
    }
}

struct Target {
    let name: String
    let isSystemLibrary: Bool
    let path: String?
    /// Dependencies with the platforms they are restricted to (`nil`: all).
    let dependencies: [(name: String, platforms: [String]?)]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("check-client-graph: \(message)\n".utf8))
    exit(2)
}

func loadGraph(_ path: String) -> (targets: [String: Target], products: [String: [String]]) {
    guard let data = FileManager.default.contents(atPath: path),
        let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let targetList = json["targets"] as? [[String: Any]], let productList = json["products"] as? [[String: Any]]
    else { fail("\(path) is not the output of `swift package dump-package`") }
    var targets: [String: Target] = [:]
    for target in targetList {
        guard let name = target["name"] as? String else { continue }
        var dependencies: [(String, [String]?)] = []
        for dependency in target["dependencies"] as? [[String: Any]] ?? [] {
            for kind in ["byName", "target", "product"] {
                guard let tuple = dependency[kind] as? [Any], let dependencyName = tuple.first as? String else { continue }
                let condition = tuple.count > (kind == "product" ? 3 : 1) ? tuple.last as? [String: Any] : nil
                dependencies.append((dependencyName, condition?["platformNames"] as? [String]))
            }
        }
        targets[name] = Target(
            name: name, isSystemLibrary: target["type"] as? String == "system", path: target["path"] as? String, dependencies: dependencies)
    }
    var products: [String: [String]] = [:]
    for product in productList {
        if let name = product["name"] as? String { products[name] = product["targets"] as? [String] ?? [] }
    }
    return (targets, products)
}

/// Every target reachable from `roots` on `platform`, with the path that reached it first.
func reachable(from roots: [String], on platform: Platform, in targets: [String: Target]) -> [String: [String]] {
    var paths: [String: [String]] = [:]
    var pending = roots.map { ($0, [$0]) }
    while let (name, path) = pending.popLast() {
        guard paths[name] == nil else { continue }
        paths[name] = path
        for dependency in targets[name]?.dependencies ?? [] where platform.admits(dependency.platforms) {
            pending.append((dependency.name, path + [dependency.name]))
        }
    }
    return paths
}

func graphProblems(targets: [String: Target], products: [String: [String]]) -> (problems: [String], clientModules: Set<String>) {
    var problems: [String] = []
    var clientModules: Set<String> = []
    for product in clientProducts {
        guard let roots = products[product] else {
            problems.append("client product \(product) is not declared")
            continue
        }
        for platform in Platform.allCases {
            for (name, path) in reachable(from: roots, on: platform, in: targets).sorted(by: { $0.key < $1.key }) {
                let chain = (path.first == product ? path : [product] + path).joined(separator: " → ")
                guard let target = targets[name] else { continue }
                if target.isSystemLibrary {
                    if let allowed = clientCLibraries[name] {
                        if !allowed.contains(platform) {
                            problems.append("\(product) reaches \(name) on \(platform) platforms (\(chain)); condition it: .when(platforms: [.linux])")
                        }
                    } else {
                        problems.append("\(product) reaches the server-only C library \(name) (\(chain))")
                    }
                } else if serverOnlyModules.contains(name) || name.hasPrefix("StratusServer") {
                    problems.append("\(product) reaches the server-only module \(name) (\(chain))")
                } else if platform == .linux {
                    clientModules.insert(name)
                }
            }
        }
    }
    return (problems, clientModules)
}

/// Modules imported outside a platform guard in one file.
func unguardedImports(in text: String, platformOnly: Set<String>) -> [(line: Int, module: String)] {
    // Each open `#if`: the conditions of its branches so far; the last is the current branch's.
    var stack: [[String]] = []
    var found: [(Int, String)] = []
    for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let line = raw.trimmingCharacters(in: .whitespaces)
        if line.hasPrefix("#if ") {
            stack.append([String(line.dropFirst(4))])
        } else if line.hasPrefix("#elseif ") {
            if !stack.isEmpty { stack[stack.count - 1].append(String(line.dropFirst(8))) }
        } else if line.hasPrefix("#else") {
            if !stack.isEmpty { stack[stack.count - 1].append("else") }
        } else if line.hasPrefix("#endif") {
            _ = stack.popLast()
        } else if let module = importedModule(line), platformOnly.contains(module) {
            let guarded = stack.contains { branches in
                let current = branches[branches.count - 1]
                if current.contains("canImport(\(module))") || current.contains("os(") { return true }
                return branches.count > 1 && branches.dropLast().contains { $0.contains("canImport(") || $0.contains("os(") }
            }
            if !guarded { found.append((index + 1, module)) }
        }
    }
    return found
}

/// The module an `import` line names (`@preconcurrency public import struct Foo.Bar` → `Foo`).
func importedModule(_ line: String) -> String? {
    var words = line.split(separator: " ").map(String.init)
    while let first = words.first, first.hasPrefix("@") || ["public", "package", "internal", "fileprivate", "private"].contains(first) {
        words.removeFirst()
    }
    guard words.first == "import", words.count >= 2 else { return nil }
    let kinds: Set<String> = ["struct", "class", "enum", "protocol", "typealias", "func", "var", "let", "actor"]
    let path = kinds.contains(words[1]) && words.count >= 3 ? words[2] : words[1]
    return path.split(separator: ".").first.map(String.init)
}

func sourceProblems(root: String, modules: Set<String>, targets: [String: Target], products: [String: [String]]) -> [String] {
    // Targets a client reaches on Linux only are platform-only too (COpenSSL, CCurl, StratusCurl); their own
    // sources are never built for an Apple client, so they need no guards.
    let roots = clientProducts.flatMap { products[$0] ?? [] }
    let apple = Set(reachable(from: roots, on: .apple, in: targets).keys)
    let conditioned = Set(reachable(from: roots, on: .linux, in: targets).keys).subtracting(apple)
    var problems: [String] = []
    for module in modules.sorted() where !conditioned.contains(module) {
        let directory = root + "/" + (targets[module]?.path ?? "Sources/\(module)")
        guard let files = FileManager.default.enumerator(atPath: directory) else {
            problems.append("cannot read the sources of \(module) in \(directory)")
            continue
        }
        for case let file as String in files where file.hasSuffix(".swift") {
            guard let text = try? String(contentsOfFile: directory + "/" + file, encoding: .utf8) else { continue }
            for (line, imported) in unguardedImports(in: text, platformOnly: platformOnlyModules.union(conditioned)) {
                problems.append(
                    "\(directory.dropFirst(root.count + 1))/\(file):\(line): import \(imported) exists on some platforms only; "
                        + "put it inside #if canImport(\(imported)) … #endif")
            }
        }
    }
    return problems
}

let arguments = CommandLine.arguments.dropFirst()
guard let dumpPath = arguments.first else { fail("usage: check-client-graph.swift <dump-package.json> [<repository root>]") }
let graph = loadGraph(dumpPath)
var (problems, clientModules) = graphProblems(targets: graph.targets, products: graph.products)
if arguments.count > 1 {
    problems += sourceProblems(root: arguments[arguments.startIndex + 1], modules: clientModules, targets: graph.targets, products: graph.products)
}
problems = problems.reduce(into: []) { kept, problem in if !kept.contains(problem) { kept.append(problem) } }
if problems.isEmpty {
    print(
        "check-client-graph: \(clientProducts.count) client products reach only the OS (and OpenSSL and libcurl on Linux); \(clientModules.count) modules' imports are guarded"
    )
} else {
    for problem in problems { print("check-client-graph: \(problem)") }
    exit(1)
}
