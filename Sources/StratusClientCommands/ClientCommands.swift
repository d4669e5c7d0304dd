import Foundation
public import StratusClient
import StratusKeyValue
import StratusWire

/// The `stratus` client commands, built on the SDK: records, zones, change feeds, the key-value
/// store, notifications and document folders. The executable calls ``run(_:arguments:environment:output:transport:)``;
/// tests call it with a buffer for output.
///
/// ```swift
/// try await ClientCommands.run("records", arguments: ["get", "n1", "--container", "iCloud.com.example.App"],
///                              environment: ProcessInfo.processInfo.environment, output: .standardOutput)
/// ```
public enum ClientCommands {
    /// The command names this module serves.
    public static let names: Set<String> = ["records", "zones", "changes", "kv", "watch", "docs"]

    /// The help text of the client commands.
    public static let usage = RecordCommands.usage + "\n" + KeyValueCommands.usage + "\n" + DocumentCommands.usage

    /// Runs one client command.
    ///
    /// - Parameters:
    ///   - command: `records`, `zones`, `changes`, `kv`, `watch` or `docs`.
    ///   - arguments: The words after the command.
    ///   - environment: The process environment (`STRATUS_*` fallbacks).
    ///   - output: Where results are printed.
    ///   - transport: The HTTP transport; URLSession by default.
    /// - Throws: ``ClientCommandError`` for usage errors, `StratusError` from the server.
    public static func run(
        _ command: String, arguments: [String], environment: [String: String], output: ClientOutput,
        transport: (any HTTPTransport)? = nil
    ) async throws {
        let options = try ClientOptions(arguments: arguments, environment: environment)
        if options.flag("help") {
            output.line(usage)
            return
        }
        let container = try options.container(transport: transport)
        switch command {
        case "records": try await RecordCommands.records(options, container: container, output: output)
        case "zones": try await RecordCommands.zones(options, container: container, output: output)
        case "changes": try await RecordCommands.changes(options, container: container, output: output)
        case "kv": try await KeyValueCommands.keyValue(options, container: container, output: output)
        case "watch": try await KeyValueCommands.watch(options, container: container, output: output)
        case "docs": try await DocumentCommands.docs(options, container: container, output: output)
        default: throw ClientCommandError("unknown client command '\(command)'\n\n\(usage)")
        }
    }
}

/// `stratus kv get|set|list` and `stratus watch`.
enum KeyValueCommands {
    static let usage = """
          stratus kv get <key>
          stratus kv set <key> <value> [--type string|int|double|bool|json]
          stratus kv remove <key>
          stratus kv list
          stratus watch [--subscribe zone:<Zone>|query:<RecordType>] [--count N]   print notifications as they arrive
        """

    static func keyValue(_ options: ClientOptions, container: Container, output: ClientOutput) async throws {
        var words = options.positional
        guard !words.isEmpty else { throw ClientCommandError(usage) }
        let verb = words.removeFirst()
        var configuration = KeyValueStore.Configuration()
        configuration.syncsAutomatically = false
        configuration.observesPushes = false
        let store = try KeyValueStore(container: container, databaseURL: nil, configuration: configuration)
        defer { store.close() }
        try await store.synchronizeNow()
        switch verb {
        case "get":
            guard let key = words.first else { throw ClientCommandError("kv get needs a key") }
            guard let value = store.object(forKey: key) else { throw ClientCommandError("no value for '\(key)'") }
            output.line(try json(value))
        case "set":
            guard words.count == 2 else { throw ClientCommandError("kv set needs a key and a value") }
            try store.set(try parseValue(words[1], type: options.string("type") ?? "string"), forKey: words[0])
            try await store.synchronizeNow()
            output.line("set \(words[0])")
        case "remove":
            guard let key = words.first else { throw ClientCommandError("kv remove needs a key") }
            store.removeObject(forKey: key)
            try await store.synchronizeNow()
            output.line("removed \(key)")
        case "list":
            for (key, value) in store.dictionaryRepresentation.sorted(by: { $0.key < $1.key }) {
                output.line("\(key)\t\(try json(value))")
            }
        default:
            throw ClientCommandError("unknown kv command '\(verb)'\n\n\(usage)")
        }
    }

    static func watch(_ options: ClientOptions, container: Container, output: ClientOutput) async throws {
        let database = container.database(with: try options.databaseScope())
        if let subscribe = options.string("subscribe") {
            let parts = subscribe.split(separator: ":", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw ClientCommandError("--subscribe must be zone:<Zone> or query:<RecordType>") }
            let subscription: Subscription
            switch parts[0] {
            case "zone":
                subscription = Subscription(
                    subscriptionID: "stratus-watch-zone-\(parts[1])", subscriptionType: .zone, zoneID: ZoneID(zoneName: parts[1]))
            case "query":
                subscription = Subscription(
                    subscriptionID: "stratus-watch-query-\(parts[1])", subscriptionType: .query, query: Query(recordType: parts[1]))
            default: throw ClientCommandError("--subscribe must be zone:<Zone> or query:<RecordType>")
            }
            try await database.save(subscription)
        }
        let limit = try options.integer("count")
        var count = 0
        for try await notification in container.notifications() {
            output.line(describe(notification))
            count += 1
            if let limit, count >= limit { return }
        }
    }

    /// One line per notification: kind, subscription, zone, record, reason.
    static func describe(_ notification: CloudNotification) -> String {
        var parts = [notification.kind.rawValue]
        if let id = notification.subscriptionID { parts.append("subscription=\(id)") }
        if let scope = notification.databaseScope { parts.append("database=\(scope.rawValue)") }
        if let zone = notification.zoneID { parts.append("zone=\(zone.zoneName)") }
        if let record = notification.recordID { parts.append("record=\(record.recordName)") }
        if let reason = notification.queryNotificationReason { parts.append("reason=\(reason)") }
        if notification.isResync { parts.append("resync") }
        return parts.joined(separator: " ")
    }

    static func parseValue(_ text: String, type: String) throws -> KeyValueStore.Value {
        func bad() -> ClientCommandError { ClientCommandError("'\(text)' is not a valid \(type)") }
        switch type {
        case "string": return .string(text)
        case "int":
            guard let value = Int64(text) else { throw bad() }
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
        default: throw ClientCommandError("--type must be string, int, double, bool or json")
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
