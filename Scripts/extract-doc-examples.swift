// Extracts every Swift example of the public documentation into Examples/DocComments, where the
// StratusDocExamples target builds them: so a doc example can never rot (issue 21, section 4).
// Run by `make build` / `make test` through Scripts/extract-doc-examples.sh before the build.
//
//   swift Scripts/extract-doc-examples.swift [<repository root>] [--check]
//
// Sources: the ```swift blocks of doc comments (`///`) under Sources/, and of the guides in
// Documentation/ that app developers copy from (GUIDES below). Each block becomes one file:
// - its imports, plus `Foundation` (and `FoundationNetworking` where it exists) and the module it
//   documents (what a reader of that module has); `@testable` for the example of a declaration that
//   is not public (maintainers' documentation; debug builds, as `make build`, allow it);
// - its declarations at file scope, made `private` so two examples may use one name;
// - or, when it has statements, those statements in a `private func` (async, throwing) whose
//   parameters are the "givens" it uses (below).
// The types examples use without declaring them (`Book`, `UploadFile`) are declared by hand in
// Examples/DocComments/Givens/; an example must not declare a type of the same name at file scope.
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
    "StratusTesting": [
        "server": "TestCloudKitServer", "derSignature": "Data", "key": "P256PrivateKey", "message": "Data", "token": "String",
        "directory": "TemporaryDirectory", "ada": "TestCloudKitServer.SignedInUser", "router": "Router", "titles": "() -> [String]",
        "port": "UInt16",
    ],
    "StratusClient": [
        "inbox": "ZoneID", "projects": "ZoneID", "cutoff": "Date", "here": "Location", "apiToken": "String", "sessionToken": "String",
        "id": "String", "send": "(String) -> Void", "refresh": "(ZoneID) async -> Void", "fetchChanges": "(ZoneID?) async throws -> Void",
        "fetchEverythingChanged": "() async throws -> Void", "deviceToken": "Data", "userInfo": "[AnyHashable: Any]",
    ],
    "StratusCrypto": ["key": "P256PrivateKey", "header": "String", "claims": "String", "message": "Data"],
    "StratusServerCrypto": [
        "serverSecret": "Data", "publicKey": "P256PublicKey", "signature": "Data", "key": "P256PrivateKey", "message": "Data",
        "attempt": "String", "header": "String", "keyID": "String",
    ],
    "StratusHTTP": [
        "router": "Router", "request": "HTTPRequest", "isValid": "@escaping @Sendable (String?) -> Bool",
        "store": "@escaping @Sendable ((any HTTPBodySink)?) async throws -> HTTPResponse",
        "handle": "@escaping @Sendable (HTTPRequest) async throws -> HTTPResponse",
    ],
    "StratusHTTPServer": ["router": "Router", "server": "HTTPServer", "certificate": "URL", "key": "URL"],
    "StratusMetrics": ["metrics": "MetricsRegistry"],
    "StratusServerAPNs": ["service": "CloudKitService", "metrics": "MetricsRegistry"],
    "StratusServer": [
        "secret": "Data", "dataDirectory": "URL", "upload": "URL", "files": "AssetFileStore", "store": "any RecordStore",
        "accounts": "any AccountStore", "configuration": "ServiceConfiguration", "admin": "AccountAdministration", "router": "Router",
        "service": "CloudKitService", "server": "HTTPServer", "identity": "ServerToServerSignature.Identity", "signedAt": "Int64",
        "tolerance": "Int64", "now": "Int64", "replayed": "any Error", "metrics": "MetricsRegistry", "delivery": "APNsDelivery",
        "credentials": "APNsCredentials", "transport": "any APNsTransport", "headers": "[(name: String, value: String)]",
        "body": "[UInt8]", "deviceToken": "String", "fanout": "PushFanout", "schema": "Schema", "query": "StratusWire.Query",
        "buckets": "any SharedRateBuckets", "limits": "QuotaLimits", "data": "Data", "current": "Schema", "caFile": "String",
        "tx": "any RecordStoreWriter", "zone": "ZoneRow", "record": "StoredRecord", "database": "DatabaseKey",
        "ticket": "AssetUploadTicket", "ledger": "UploadTicketLedger", "console": "any ConsoleStore",
    ],
    "StratusConsole": [
        "service": "CloudKitService", "store": "any RecordStore & AccountStore & ConsoleStore", "configuration": "ServiceConfiguration",
        "router": "Router",
    ],
    "StratusStore": [
        "container": "PersistentContainer", "book": "ManagedObject", "note": "ManagedObject", "url": "URL", "model": "ObjectModel",
        "token": "HistoryToken?", "id": "ObjectID", "authorID": "ObjectID",
        "enqueueUpload": "(ObjectID, HistoryChange.Kind, Set<String>) -> Void",
    ],
    "StratusDocuments": ["url": "URL", "root": "URL"],
    "StratusWire": ["body": "Data", "record": "StratusWire.Record", "response": "RecordsQuery.Response"],
]

/// The modules of each given's type, imported with it (the given comes from outside the example).
let givenModules: [String: [String]] = [
    "Database": ["StratusClient"], "Container": ["StratusClient"], "Record": ["StratusClient"], "ZoneID": ["StratusWire"],
    "Location": ["StratusWire"], "SyncController": ["StratusSync"], "DocumentsContainer": ["StratusDocuments"],
    "ObjectContext": ["StratusStore"], "PersistentContainer": ["StratusStore"], "ObjectModel": ["StratusStore"],
    "HistoryToken?": ["StratusStore"], "ManagedObject": ["StratusStore"], "Logger": ["StratusLogging"],
    "SQLiteConnection": ["StratusSQLite"], "TestCloudKitServer": ["StratusTesting"], "TestCloudKitServer.SignedInUser": ["StratusTesting"],
    "Router": ["StratusHTTP"], "HTTPServer": ["StratusHTTPServer"], "P256PrivateKey": ["StratusCrypto"], "P256PublicKey": ["StratusCrypto"],
    "MetricsRegistry": ["StratusMetrics"], "CloudKitService": ["StratusServer"], "StratusWire.Query": ["StratusWire"],
    "ServerToServerSignature.Identity": ["StratusCrypto", "StratusServerCrypto"],
    "ServiceConfiguration": ["StratusServer"], "any RecordStore & AccountStore & ConsoleStore": ["StratusServer"],
]

/// The givens `body` uses and does not declare, as `name: Type` parameters.
func givens(of body: [String], module: String?) -> [String] {
    let table = commonGivens.merging(module.flatMap { moduleGivens[$0] } ?? [:]) { _, own in own }
    // Code only: a name in a comment or in the text of a string literal is not a use.
    let text = body.map(codeOnly).joined(separator: "\n")
    var used: [String] = []
    for (name, type) in table.sorted(by: { $0.key < $1.key }) {
        let use = try? Regex("(^|[^.\\w])\(name)(?![\\w:])")
        let declaration = try? Regex("(let|var|func|case|for)\\s+\(name)\\b|\\b\(name)\\s+in\\b")
        // A given is used before the example declares a name like it (`context.perform { context in … }`).
        guard let use, let declaration, let firstUse = text.firstMatch(of: use) else { continue }
        // The match starts at the character before the name, unless the name starts the text.
        let start = firstUse.range.lowerBound
        let usedAt = text[start...].hasPrefix(name) ? start : text.index(after: start)
        if let firstDeclaration = text.firstMatch(of: declaration), firstDeclaration.range.lowerBound <= usedAt { continue }
        used.append("\(name): \(type)")
    }
    return used
}

/// `line` without its comment and the text of its string literals (interpolated code is kept).
func codeOnly(_ line: String) -> String {
    let characters = Array(line)
    var code = ""
    var inString = false
    var interpolation = 0  // open parentheses of an interpolation
    var index = 0
    while index < characters.count {
        let character = characters[index]
        let next = index + 1 < characters.count ? characters[index + 1] : nil
        index += 1
        if inString, interpolation > 0 {
            interpolation += character == "(" ? 1 : character == ")" ? -1 : 0
            code.append(interpolation == 0 ? " " : character)
        } else if inString {
            if character == "\\" {
                index += 1
                if next == "(" { interpolation = 1 }
            } else if character == "\"" {
                inString = false
                code.append(character)
            }
        } else if character == "/", next == "/" {
            break
        } else {
            inString = character == "\""
            code.append(character)
        }
    }
    return code
}

struct Example {
    let origin: String  // path:line
    let module: String?
    let lines: [String]
    /// Whether the documented declaration is not public: the example imports its module `@testable`.
    var documentsInternal = false
}

/// Whether `line`, the first after a doc comment, declares something outside the module's public
/// interface: a top-level declaration without `public` or `open` (an extension's members are judged
/// by their own comments; a protocol's requirements are as public as the protocol).
func declaresInternal(_ line: String) -> Bool {
    guard let first = line.first, first != " ", !line.hasPrefix("extension ") else { return false }
    return !line.hasPrefix("public ") && !line.hasPrefix("open ") && !line.contains(" public ")
}

/// The ```swift blocks of `text`; `prefix` is what starts each line of the block (`///` or nothing),
/// each with the first line after its doc comment (the declaration it documents).
func blocks(in text: String, prefix: String) -> [(line: Int, lines: [String], declaration: String)] {
    var found: [(Int, [String], String)] = []
    var current: [String]?
    var start = 0
    let all = text.components(separatedBy: "\n")
    for (index, raw) in all.enumerated() {
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
            let after = all[(index + 1)...].first { line in
                let code = line.trimmingCharacters(in: .whitespaces)
                return prefix.isEmpty || !(code.hasPrefix("///") || code.hasPrefix("//") || code.hasPrefix("@"))
            }
            found.append((start, current ?? [], after ?? ""))
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
/// Lines that neither declare nor run anything (a macro such as `#expect` is a statement).
let compilerDirectives = ["#if ", "#elseif ", "#else", "#endif"]
let privatizable = ["final class ", "class ", "struct ", "enum ", "actor ", "func ", "let ", "var ", "protocol ", "typealias "]

/// Whether every top-level line of `body` belongs to a declaration, and not every one is a binding
/// nor does any binding run anything (`let count = try await …` is a statement in an example).
func isDeclarations(_ body: [String]) -> Bool {
    let topLevel = body.filter { !$0.isEmpty && !$0.hasPrefix(" ") && !$0.hasPrefix("}") && !$0.hasPrefix("//") }
    let bindings = topLevel.filter { $0.hasPrefix("let ") || $0.hasPrefix("var ") }
    if bindings.count == topLevel.count || bindings.contains(where: { $0.contains("try ") || $0.contains("await ") }) { return false }
    var depth = 0
    for line in body {
        let code = line.trimmingCharacters(in: .whitespaces)
        if depth == 0, !code.isEmpty, !code.hasPrefix("//"), !code.hasPrefix("}"), !compilerDirectives.contains(where: code.hasPrefix),
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
    var imports: [String] = ["import Foundation", "#if canImport(FoundationNetworking)", "import FoundationNetworking", "#endif"]
    let documented = example.module.map { (example.documentsInternal ? "@testable " : "") + "import \($0)" }
    if let documented { imports.append(documented) }
    var body: [String] = []
    for given in givens(of: example.lines, module: example.module) {
        for module in givenModules[givenType(given)] ?? [] { imports.append("import \(module)") }
    }
    for line in example.lines {
        let code = line.trimmingCharacters(in: .whitespaces)
        if code.hasPrefix("import ") || code.hasPrefix("@testable import ") {
            if let documented, documented.hasSuffix(code) { continue }
            imports.append(code)
        } else if !body.isEmpty || !code.isEmpty {
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
        // A given the example changes is a variable, as the example's own would be (`record["rank"] = 3`).
        let code = body.map(codeOnly).joined(separator: "\n")
        for name in given.map(givenName) where isChanged(name, in: code) || mutatedValueTypes.contains(givenType(given.first { givenName($0) == name } ?? "")) {
            output.append("    var \(name) = \(name)")
        }
        output += body.map { $0.isEmpty ? "" : "    " + $0 }
        output.append("}")
    }
    return output.joined(separator: "\n") + "\n"
}

/// `name: Type` → `name`.
func givenName(_ given: String) -> String { String(given.prefix { $0 != ":" }) }

/// `name: Type` → `Type`.
func givenType(_ given: String) -> String { String(given.dropFirst(givenName(given).count + 1)).trimmingCharacters(in: .whitespaces) }

/// Value types whose mutating methods examples call (`router.use(…)`).
let mutatedValueTypes: Set<String> = ["Router"]

/// Whether `code` assigns to `name`, one of its members or subscripts, passes it `inout`, or calls a
/// mutating method of a value type on it.
func isChanged(_ name: String, in code: String) -> Bool {
    let assignment = try? Regex("(^|[^.\\w])\(name)([.?!\\w]|\\[[^\\]]*\\])*\\s*[-+*/]?=[^=]|&\(name)\\b")
    if let assignment, code.contains(assignment) { return true }
    return false
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
        var example = Example(origin: "\(path):\(block.line)", module: module(of: path), lines: block.lines)
        example.documentsInternal = declaresInternal(block.declaration)
        examples.append(("\(stem)_\(number + 1)", example))
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
print(
    "extract-doc-examples: \(examples.count) examples built, \(pending.count) pending (\(pendingList)), \(stale.count) file(s) \(check ? "out of date" : "written or removed")"
)
