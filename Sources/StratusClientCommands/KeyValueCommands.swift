import Foundation
import StratusClient
import StratusKeyValue
import StratusWire

/// `stratus kv get|set|remove|list|sync`: the key-value store from the shell, with a local store like the library's.
///
/// Values live in a SQLite file between runs (`--store PATH`, or one per server and container under
/// `$XDG_DATA_HOME/stratus/kv/`), so a `set` without network is kept and uploads at the next command,
/// and `get` answers from it when the server cannot be reached. A value the server refuses fails the
/// command (the key gets the server's value back), as does a key or value the store refuses locally.
enum KeyValueCommands {
    static let usage = """
          stratus kv get <key>
          stratus kv set <key> <value> [--type string|int|double|bool|json|data]
          stratus kv set <key> --value-file PATH|-   the value from a file, or standard input with -
          stratus kv remove <key>
          stratus kv list
          stratus kv sync                  upload changes kept offline, fetch other devices' changes
              --store PATH (STRATUS_STORE): the local store; default $XDG_DATA_HOME/stratus/kv/<server-container-env>.sqlite
        """

    static func keyValue(_ options: ClientOptions, container: Container, output: ClientOutput) async throws {
        var words = options.positional
        guard !words.isEmpty else { throw ClientCommandError(usage) }
        let verb = words.removeFirst()
        var configuration = KeyValueStore.Configuration()
        configuration.syncsAutomatically = false
        configuration.observesPushes = false
        let file = try storeFile(options)
        if file == nil { output.warning("no HOME or XDG_DATA_HOME: values are not kept between runs (name a file with --store)") }
        let store = try KeyValueStore(container: container, databaseURL: file, configuration: configuration)
        defer { store.close() }
        switch verb {
        case "get":
            guard let key = words.first else { throw ClientCommandError("kv get needs a key") }
            try await synchronize(store, output: output, saved: nil)
            guard let value = store.object(forKey: key) else { throw ClientCommandError("no value for '\(key)'") }
            output.line(try json(value))
        case "set":
            let key = try singleKey(words, verb: "set", allowingValue: true)
            let (bytes, fromFile) = try valueBytes(words, options)
            let value = try parseValue(bytes, type: options.string("type") ?? "string", fromFile: fromFile)
            try await synchronize(store, output: nil, saved: nil)  // the server's values first: the limits count them
            try store.set(value, forKey: key)
            try await synchronize(store, output: output, saved: key)
            output.line("set \(key)")
        case "remove":
            let key = try singleKey(words, verb: "remove", allowingValue: false)
            try store.set(KeyValueStore.Value?.none, forKey: key)
            try await synchronize(store, output: output, saved: key)
            output.line("removed \(key)")
        case "list":
            try await synchronize(store, output: output, saved: nil)
            for (key, value) in store.dictionaryRepresentation.sorted(by: { $0.key < $1.key }) {
                output.line("\(key)\t\(try json(value))")
            }
        case "sync":
            try await synchronize(store, output: output, saved: nil, failIfUnreachable: true)
            output.line("synced (\(store.dictionaryRepresentation.count) keys)")
        default:
            throw ClientCommandError("unknown kv command '\(verb)'\n\n\(usage)")
        }
    }

    /// Syncs; a key the server refused fails the command. Without network the local store answers (and
    /// keeps `saved` for the next sync), unless `failIfUnreachable`.
    private static func synchronize(
        _ store: KeyValueStore, output: ClientOutput?, saved key: String?, failIfUnreachable: Bool = false
    )
        async throws
    {
        let result: KeyValueStore.SynchronizationResult
        do {
            result = try await store.synchronizeNow()
        } catch let error as StratusError where [.networkFailure, .networkUnavailable, .serviceUnavailable].contains(error.code) {
            guard !failIfUnreachable else { throw error }
            if let key {
                output?.line("\(key): kept in the local store, not uploaded yet (\(error.message)); the next `stratus kv` command uploads it")
            } else {
                output?.warning("cannot reach the server (\(error.message)); showing this device's values")
            }
            return
        }
        if let refused = result.refusedKeys.sorted(by: { $0.key < $1.key }).first {
            throw ClientCommandError("the server refused '\(refused.key)': \(refused.value); it has the server's value again")
        }
    }

    /// The key of `set`/`remove` (a `set` value may follow it).
    private static func singleKey(_ words: [String], verb: String, allowingValue: Bool) throws -> String {
        guard let key = words.first, words.count <= (allowingValue ? 2 : 1) else {
            throw ClientCommandError("kv \(verb) needs one key\(allowingValue ? " and a value (or --value-file)" : "")")
        }
        return key
    }

    /// The value of `set`: the word after the key, or the bytes of `--value-file` (`-`: standard input).
    private static func valueBytes(_ words: [String], _ options: ClientOptions) throws -> (Data, fromFile: Bool) {
        switch (words.count, options.string("value-file")) {
        case (2, nil): return (Data(words[1].utf8), false)
        case (1, "-"?): return (FileHandle.standardInput.readDataToEndOfFile(), true)
        case (1, let path?):
            do {
                return (try Data(contentsOf: URL(fileURLWithPath: path)), true)
            } catch {
                throw ClientCommandError("cannot read the value from '\(path)': \(error.localizedDescription)")
            }
        default: throw ClientCommandError("kv set needs a key and a value, or a key and --value-file PATH|-")
        }
    }

    /// `--store`, else the per-device default for this server, container and environment; `nil` (memory only)
    /// when the environment names no home.
    static func storeFile(_ options: ClientOptions) throws -> URL? {
        if let path = options.string("store") { return URL(fileURLWithPath: path) }
        let base =
            options.variable("XDG_DATA_HOME").map { URL(fileURLWithPath: $0) }
            ?? options.variable("HOME").map { URL(fileURLWithPath: $0).appendingPathComponent(".local/share") }
        guard let base else { return nil }
        let name = [options.string("server") ?? ClientOptions.defaultServer, options.string("container") ?? "", options.string("env") ?? "development"]
            .joined(separator: "-")
            .map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? $0 : "_" }
        let folder = base.appendingPathComponent("stratus/kv", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw ClientCommandError("cannot create the key-value store folder '\(folder.path)': \(error.localizedDescription)")
        }
        return folder.appendingPathComponent(String(name) + ".sqlite")
    }

    /// A value from its bytes: text (UTF-8), a number, a Boolean, JSON, or raw data (`data`: base64 on the
    /// command line, the bytes themselves from a file).
    static func parseValue(_ bytes: Data, type: String, fromFile: Bool = false) throws -> KeyValueStore.Value {
        if type == "data" {
            if fromFile { return .data(bytes) }
            guard let decoded = Data(base64Encoded: bytes) else { throw ClientCommandError("a data value on the command line is base64") }
            return .data(decoded)
        }
        guard let text = String(data: bytes, encoding: .utf8) else { throw ClientCommandError("the value is not UTF-8 text; use --type data") }
        func bad() -> ClientCommandError { ClientCommandError("'\(text.prefix(80))' is not a valid \(type)") }
        switch type {
        case "string": return .string(text)
        case "int":
            guard let value = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)) else { throw bad() }
            return .int64(value)
        case "double":
            guard let value = Double(text) else { throw bad() }
            return .double(value)
        case "bool":
            guard let value = Bool(text) else { throw bad() }
            return .bool(value)
        case "json":
            guard let parsed = try? JSONValue(parsing: Data(text.utf8)) else { throw bad() }
            return try value(fromJSON: parsed)
        default: throw ClientCommandError("--type must be string, int, double, bool, json or data")
        }
    }

    private static func value(fromJSON json: JSONValue) throws -> KeyValueStore.Value {
        switch json {
        case .string(let text): .string(text)
        case .integer(let number): .int64(number)
        case .double(let number): .double(number)
        case .bool(let flag): .bool(flag)
        case .array(let elements): .array(try elements.map(value(fromJSON:)))
        case .object(let entries): .dictionary(try entries.mapValues(value(fromJSON:)))
        case .null: throw ClientCommandError("JSON null cannot be stored")
        }
    }

    /// A value as plain JSON (data as base64 text).
    static func json(_ value: KeyValueStore.Value) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: plain(value), options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    private static func plain(_ value: KeyValueStore.Value) -> Any {
        switch value {
        case .string(let text): text
        case .int64(let number): number
        case .double(let number): number
        case .bool(let flag): flag
        case .data(let data): data.base64EncodedString()
        case .array(let elements): elements.map(plain)
        case .dictionary(let entries): entries.mapValues(plain)
        }
    }
}
