// Extracts every Swift example of the public documentation into Examples/DocComments, where the
// StratusDocExamples target builds them: so a doc example can never rot (issue 21, section 4).
// Run by `make build` / `make test` through Scripts/extract-doc-examples.sh before the build.
//
//   swift Scripts/extract-doc-examples.swift [<repository root>] [--check]
//
// Sources: the ```swift blocks of doc comments (`///`) under Sources/, and of the guides in
// Documentation/ that app developers copy from (GUIDES below). Each block becomes one file:
// - its imports, plus `Foundation` and the module it documents (what a reader of that module has);
// - its declarations at file scope, made `private` so two examples may use one name;
// - or, when it has statements, those statements in a `private func` (async, throwing).
// A block that is not meant to compile as written is fenced ```text (or ```sh, ```json) instead.
// With --check, nothing is written: exit status 1 when a generated file is missing or differs.
import Foundation

let guides = ["Documentation/Getting-started.md", "Documentation/Coming-from-ZenCloudKit.md"]
let outputDirectory = "Examples/DocComments"
let pendingList = "Scripts/doc-examples-pending.txt"
/// Test-support modules whose examples are test code: they may use Swift Testing's macros.
let testSupportModules: Set<String> = ["StratusTesting"]

/// The names an example may use without declaring them, with their types: a statement example is
/// built as a function taking those it uses (`database.save(record)` reads as written). Every
/// module's examples may use the common ones; a module's own are listed under its name.
let commonGivens: [String: String] = [
    "database": "Database", "container": "Container", "record": "Record", "logger": "Logger", "url": "URL", "zoneID": "ZoneID",
    "sync": "SyncController", "documents": "DocumentsContainer", "context": "ObjectContext", "background": "ObjectContext",
    "supportDirectory": "URL", "storeURL": "URL",
]
let moduleGivens: [String: [String: String]] = [
    "StratusSQLite": [
        "db": "SQLiteConnection", "id": "Int64", "data": "Data", "zone": "String", "name": "String", "path": "String",
        "pool": "SQLiteDatabasePool", "migrator": "SQLiteMigrator", "statement": "SQLiteStatement", "body": "String",
        "insert": "SQLiteStatement", "notes": "[(body: String, id: Int64)]", "batch": "[(zone: String, name: String, data: Data)]",
        "retryLater": "() -> Void", "reject": "(any Error) -> Void",
    ],
    "StratusPostgres": [
        "db": "PostgresConnection", "connection": "PostgresConnection", "pool": "PostgresConnectionPool", "url": "String",
        "body": "String", "name": "String", "target": "String", "id": "Int64", "owner": "String", "zoneID": "Int64",
        "wake": "(String) -> Void",
    ],
    "StratusServerPostgres": [
        "store": "PostgresRecordStore", "service": "CloudKitService", "configuration": "ServiceConfiguration",
    ],
    "StratusServerSQLite": ["configuration": "ServiceConfiguration"],
    "StratusTesting": ["server": "TestCloudKitServer"],
    "StratusClient": [
        "inbox": "ZoneID", "projects": "ZoneID", "cutoff": "Date", "here": "Location", "apiToken": "String", "sessionToken": "String",
        "id": "String", "send": "(String) -> Void", "refresh": "(ZoneID) async -> Void", "fetchChanges": "(ZoneID?) async throws -> Void",
        "fetchEverythingChanged": "() async throws -> Void",
    ],
    "StratusHTTP": ["router": "Router"],
    "StratusStore": [
        "container": "PersistentContainer", "book": "ManagedObject", "note": "ManagedObject", "url": "URL", "model": "ObjectModel",
        "token": "HistoryToken?",
    ],
    "StratusDocuments": ["url": "URL", "root": "URL"],
    "StratusWire": ["body": "Data", "record": "StratusWire.Record", "response": "RecordsQuery.Response"],
    "StratusHTTPServer": ["router": "Router"],
]

/// The module of each given's type, imported with it (the given comes from outside the example).
let givenModules: [String: String] = [
    "Database": "StratusClient", "Container": "StratusClient", "Record": "StratusClient", "ZoneID": "StratusWire",
    "Location": "StratusWire", "SyncController": "StratusSync", "DocumentsContainer": "StratusDocuments",
    "ObjectContext": "StratusStore", "PersistentContainer": "StratusStore", "ObjectModel": "StratusStore", "HistoryToken?": "StratusStore", "ManagedObject": "StratusStore",
    "Logger": "StratusLogging", "SQLiteConnection": "StratusSQLite", "TestCloudKitServer": "StratusTesting", "Router": "StratusHTTP",
    "CloudKitService": "StratusServer", "ServiceConfiguration": "StratusServer",
]

/// The givens `body` uses and does not declare, as `name: Type` parameters.
func givens(of body: [String], module: String?) -> [String] {
    let table = commonGivens.merging(module.flatMap { moduleGivens[$0] } ?? [:]) { _, own in own }
    // Code only: a name in a comment is not a use.
    let text = body.map { line in line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? line }.joined(separator: "\n")
    var used: [String] = []
    for (name, type) in table.sorted(by: { $0.key < $1.key }) {
        let use = try? Regex("(^|[^.\\w])\(name)(?![\\w:])")
        let declaration = try? Regex("(let|var|func|case|for)\\s+\(name)\\b|\\b\(name)\\s+in\\b")
        // A given is used before the example declares a name like it (`context.perform { context in … }`).
        guard let use, let declaration, let firstUse = text.firstMatch(of: use) else { continue }
        if let firstDeclaration = text.firstMatch(of: declaration), firstDeclaration.range.lowerBound <= firstUse.range.lowerBound { continue }
        used.append("\(name): \(type)")
    }
    return used
}

struct Example {
    let origin: String  // path:line
    let module: String?
    let lines: [String]
}

/// The ```swift blocks of `text`; `prefix` is what starts each line of the block (`///` or nothing).
func blocks(in text: String, prefix: String) -> [(line: Int, lines: [String])] {
    var found: [(Int, [String])] = []
    var current: [String]?
    var start = 0
    for (index, raw) in text.components(separatedBy: "\n").enumerated() {
        let trimmed = raw.trimmingCharacters(in: .whitespaces)
        guard trimmed.hasPrefix(prefix) else {
            current = nil
            continue
        }
        var body = String(trimmed.dropFirst(prefix.count))
        if !prefix.isEmpty, body.hasPrefix(" ") { body.removeFirst() }
        if current == nil {
            if body.trimmingCharacters(in: .whitespaces) == "```swift" {
                current = []
                start = index + 1
            }
        } else if body.trimmingCharacters(in: .whitespaces) == "```" {
            found.append((start, current ?? []))
            current = nil
        } else {
            current?.append(prefix.isEmpty ? raw : body)
        }
    }
    return found
}

let declarationStarts = [
    "final class ", "class ", "struct ", "enum ", "actor ", "func ", "let ", "var ", "protocol ", "typealias ", "extension ",
    "public ", "private ", "fileprivate ", "internal ", "nonisolated ", "@",
]
let privatizable = ["final class ", "class ", "struct ", "enum ", "actor ", "func ", "let ", "var ", "protocol ", "typealias "]

/// Whether every top-level line of `body` belongs to a declaration, and not all of them are bindings
/// (`let count = try await …` is a statement in an example).
func isDeclarations(_ body: [String]) -> Bool {
    let topLevel = body.filter { !$0.isEmpty && !$0.hasPrefix(" ") && !$0.hasPrefix("}") && !$0.hasPrefix("//") }
    if topLevel.allSatisfy({ $0.hasPrefix("let ") || $0.hasPrefix("var ") }) { return false }
    var depth = 0
    for line in body {
        let code = line.trimmingCharacters(in: .whitespaces)
        if depth == 0, !code.isEmpty, !code.hasPrefix("//"), !code.hasPrefix("}"), !code.hasPrefix("#"),
            !declarationStarts.contains(where: code.hasPrefix)
        {
            return false
        }
        depth += line.filter { $0 == "{" }.count - line.filter { $0 == "}" }.count
    }
    return true
}

/// The file for one example.
func render(_ example: Example) -> String {
    var imports: [String] = ["import Foundation"]
    if let module = example.module { imports.append("import \(module)") }
    var body: [String] = []
    for given in givens(of: example.lines, module: example.module) {
        let type = given.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        if let module = givenModules[type] { imports.append("import \(module)") }
    }
    for line in example.lines {
        let code = line.trimmingCharacters(in: .whitespaces)
        if code.hasPrefix("import ") || code.hasPrefix("@testable import ") {
            imports.append(code)
        } else {
            body.append(line)
        }
    }
    if let module = example.module, testSupportModules.contains(module), body.contains(where: { $0.contains("#expect") || $0.contains("#require") }) {
        imports.append("import Testing")
    }
    var unique: [String] = []
    for line in imports where !unique.contains(line) { unique.append(line) }
    var output = ["// Generated by Scripts/extract-doc-examples.swift from \(example.origin); edit the original.", ""] + unique + [""]
    if isDeclarations(body) {
        for line in body {
            if privatizable.contains(where: line.hasPrefix) {
                output.append("private " + line)
            } else {
                output.append(line)
            }
        }
    } else {
        let given = givens(of: body, module: example.module)
        output.append("private func example(\(given.joined(separator: ", "))) async throws {")
        // Givens are variables, as the example's own would be (`record["rank"] = 3`).
        output += given.map { "    var \($0.prefix { $0 != ":" }) = \($0.prefix { $0 != ":" })" }
        output += body.map { $0.isEmpty ? "" : "    " + $0 }
        output.append("}")
    }
    return output.joined(separator: "\n") + "\n"
}

/// `Sources/<Module>/…` → `<Module>`.
func module(of path: String) -> String? {
    let parts = path.split(separator: "/")
    guard parts.count > 2, parts[0] == "Sources" else { return nil }
    return String(parts[1])
}

let arguments = CommandLine.arguments.dropFirst()
let root = URL(fileURLWithPath: arguments.first(where: { !$0.hasPrefix("--") }) ?? ".")
let check = arguments.contains("--check")
let manager = FileManager.default
var examples: [(name: String, example: Example)] = []

var sourcePaths: [String] = []
if let walker = manager.enumerator(atPath: root.appendingPathComponent("Sources").path) {
    for case let path as String in walker where path.hasSuffix(".swift") { sourcePaths.append("Sources/" + path) }
}
for path in sourcePaths.sorted() {
    let text = (try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)) ?? ""
    let stem = path.split(separator: "/").dropFirst().joined(separator: "_").replacingOccurrences(of: ".swift", with: "")
    for (number, block) in blocks(in: text, prefix: "///").enumerated() {
        examples.append(("\(stem)_\(number + 1)", Example(origin: "\(path):\(block.line)", module: module(of: path), lines: block.lines)))
    }
}
for path in guides {
    guard let text = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) else {
        FileHandle.standardError.write(Data("extract-doc-examples: \(path) is missing\n".utf8))
        exit(1)
    }
    let stem = "Guide_" + (path.split(separator: "/").last ?? "").replacingOccurrences(of: ".md", with: "").replacingOccurrences(of: "-", with: "")
    for (number, block) in blocks(in: text, prefix: "").enumerated() {
        examples.append(("\(stem)_\(number + 1)", Example(origin: "\(path):\(block.line)", module: nil, lines: block.lines)))
    }
}

// Examples that do not build as written yet, one file stem a line: skipped, and named in the summary.
// The list only shrinks: fix an example (make it self-contained, or use the givens), then remove its line.
let pendingText = (try? String(contentsOf: root.appendingPathComponent(pendingList), encoding: .utf8)) ?? ""
let pending = Set(pendingText.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty })
examples.removeAll { pending.contains($0.name) }

let directory = root.appendingPathComponent(outputDirectory)
var wanted: [String: String] = [:]
for entry in examples { wanted[entry.name + ".swift"] = render(entry.example) }
let existing = Set((try? manager.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".swift") }
var stale: [String] = []
for (name, text) in wanted.sorted(by: { $0.key < $1.key }) {
    let url = directory.appendingPathComponent(name)
    if (try? String(contentsOf: url, encoding: .utf8)) == text { continue }
    stale.append(name)
    if !check {
        try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
    }
}
for name in existing.subtracting(wanted.keys).sorted() {
    stale.append(name)
    if !check { try manager.removeItem(at: directory.appendingPathComponent(name)) }
}
if check, !stale.isEmpty {
    FileHandle.standardError.write(Data("extract-doc-examples: out of date: \(stale.joined(separator: ", ")); run make build\n".utf8))
    exit(1)
}
print("extract-doc-examples: \(examples.count) examples built, \(pending.count) pending (\(pendingList)), \(stale.count) file(s) \(check ? "out of date" : "written or removed")")
