import Foundation
public import StratusClient
import StratusWire

/// The flags every client command shares, with `STRATUS_*` environment fallbacks.
///
/// `--server` (`STRATUS_SERVER`, default `http://127.0.0.1:8080`), `--container` (`STRATUS_CONTAINER`),
/// `--env` (`STRATUS_ENV`, `development`), `--database` (`STRATUS_DATABASE`, `private`), `--api-token`
/// (`STRATUS_API_TOKEN`), `--web-auth-token` (`STRATUS_WEB_AUTH_TOKEN`), `--zone` (`_defaultZone`).
public struct ClientOptions: Sendable {
    /// Words that are not flags, in order.
    public private(set) var positional: [String] = []
    /// Repeatable flags (`--filter`), in order.
    public private(set) var repeated: [String: [String]] = [:]
    private var values: [String: String] = [:]
    private let environment: [String: String]

    private static let booleanFlags: Set<String> = ["help", "json", "once", "on-demand", "eager", "no-push"]
    private static let repeatableFlags: Set<String> = ["filter", "sort"]

    /// Parses `--name value`, `--name=value` and boolean `--flag` words.
    ///
    /// - Parameters:
    ///   - arguments: The words after the command.
    ///   - environment: The process environment.
    /// - Throws: ``ClientCommandError`` when a flag lacks its value.
    public init(arguments: [String], environment: [String: String]) throws {
        self.environment = environment
        var words = arguments.makeIterator()
        while let word = words.next() {
            guard word.hasPrefix("--"), word.count > 2 else {
                positional.append(word)
                continue
            }
            let body = String(word.dropFirst(2))
            let name: String
            let value: String
            if let equals = body.firstIndex(of: "=") {
                name = String(body[..<equals])
                value = String(body[body.index(after: equals)...])
            } else if Self.booleanFlags.contains(body) {
                name = body
                value = "true"
            } else if let next = words.next() {
                name = body
                value = next
            } else {
                throw ClientCommandError("flag --\(body) needs a value")
            }
            if Self.repeatableFlags.contains(name) { repeated[name, default: []].append(value) } else { values[name] = value }
        }
    }

    /// The flag's value, else `STRATUS_<NAME>`, else `fallback`.
    public func string(_ name: String) -> String? {
        values[name] ?? environment["STRATUS_" + name.uppercased().replacingOccurrences(of: "-", with: "_")]
    }

    /// A variable of the process environment (not a flag): `HOME`, `XDG_DATA_HOME`.
    func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }

    /// The server when neither `--server` nor `STRATUS_SERVER` names one.
    static let defaultServer = "http://127.0.0.1:8080"

    /// Whether a boolean flag was given.
    public func flag(_ name: String) -> Bool { ["1", "true", "yes"].contains((string(name) ?? "").lowercased()) }

    /// An integer flag.
    func integer(_ name: String) throws -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text), value > 0 else { throw ClientCommandError("--\(name) must be a positive whole number; got '\(text)'") }
        return value
    }

    /// The zone of `--zone`.
    var zoneID: ZoneID { ZoneID(zoneName: string("zone") ?? ZoneID.defaultZoneName) }

    /// The database of `--database`.
    func databaseScope() throws -> DatabaseScope {
        let name = string("database") ?? "private"
        guard let scope = DatabaseScope(rawValue: name) else {
            throw ClientCommandError("--database must be public, private or shared; got '\(name)'")
        }
        return scope
    }

    /// The container these flags describe.
    ///
    /// - Parameter transport: The HTTP transport; a new URLSession one by default.
    /// - Returns: The container.
    /// - Throws: ``ClientCommandError`` for a missing container or bad server URL or environment.
    public func container(transport: (any HTTPTransport)? = nil) throws -> Container {
        guard let identifier = string("container") else {
            throw ClientCommandError("name the container with --container or STRATUS_CONTAINER")
        }
        let serverText = string("server") ?? Self.defaultServer
        guard let server = URL(string: serverText), server.scheme != nil else {
            throw ClientCommandError("--server must be a URL such as http://127.0.0.1:8080; got '\(serverText)'")
        }
        let environmentName = string("env") ?? "development"
        guard let environment = StratusWire.Environment(rawValue: environmentName) else {
            throw ClientCommandError("--env must be development or production; got '\(environmentName)'")
        }
        var authentication = Authentication.none
        if let token = string("api-token") {
            if let webAuthToken = string("web-auth-token") {
                authentication = .apiToken(token, webAuthToken: webAuthToken)
            } else {
                authentication = .apiToken(token)
            }
        }
        var configuration = ClientConfiguration()
        configuration.requestTimeout = .seconds(Int64(try integer("timeout") ?? 60))
        return Container(
            identifier: identifier, environment: environment, serverURL: server, authentication: authentication,
            configuration: configuration, transport: transport)
    }
}

/// A usage error of a client command.
public struct ClientCommandError: Error, CustomStringConvertible {
    /// What went wrong, for people.
    public let description: String

    /// Creates an error.
    ///
    /// - Parameter description: What went wrong.
    public init(_ description: String) { self.description = description }
}
