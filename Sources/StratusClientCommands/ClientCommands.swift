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
        case "watch": try await WatchCommand.watch(options, container: container, output: output)
        case "docs": try await DocumentCommands.docs(options, container: container, output: output)
        default: throw ClientCommandError("unknown client command '\(command)'\n\n\(usage)")
        }
    }
}

/// `stratus watch`: notifications as they arrive (the `kv` verbs are in ``KeyValueCommands``).
enum WatchCommand {
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
}
