/// A fully addressed Web Services call: container, environment, database and operation.
///
/// Builds and parses the URL paths
/// `/database/1/{container}/{environment}/{database}/{operation}` and
/// `/device/1/{container}/{environment}/tokens/{create|register}`.
///
/// ```swift
/// let endpoint = Endpoint(container: "iCloud.com.example.App", environment: .development,
///                         database: .private, operation: .recordsQuery)
/// endpoint.path   // "/database/1/iCloud.com.example.App/development/private/records/query"
/// let parsed = try Endpoint(path: "/device/1/iCloud.com.example.App/production/tokens/create")
/// ```
///
/// CloudKit reference: Composing Web Service Requests; Apple's CloudKit Web Services Reference: “URL template”.
public struct Endpoint: Hashable, Sendable {
    /// The protocol version segment; `1` is the only one that has existed.
    public static let version = "1"

    /// The container identifier, such as `iCloud.com.example.App`.
    public var container: String
    /// The environment.
    public var environment: Environment
    /// The database; `nil` for `/device/` operations.
    public var database: DatabaseScope?
    /// The operation.
    public var operation: EndpointOperation

    /// Creates an endpoint.
    ///
    /// - Parameters:
    ///   - container: The container identifier.
    ///   - environment: The environment.
    ///   - database: The database (ignored for `/device/` operations).
    ///   - operation: The operation.
    public init(container: String, environment: Environment, database: DatabaseScope?, operation: EndpointOperation) {
        self.container = container
        self.environment = environment
        self.database = operation.module == .device ? nil : database
        self.operation = operation
    }

    /// The URL path, without scheme, host or query (also what server-to-server signatures sign).
    public var path: String {
        switch operation.module {
        case .device:
            return "/device/\(Self.version)/\(container)/\(environment.rawValue)/\(operation.rawValue)"
        case .database:
            let database = (self.database ?? operation.requiredDatabase ?? .public).rawValue
            return "/database/\(Self.version)/\(container)/\(environment.rawValue)/\(database)/\(operation.rawValue)"
        }
    }

    /// Parses a URL path (a query string, if present, is ignored).
    ///
    /// Accepts the `/device/1/…/tokens/*` form and, as an alias, Apple's documented
    /// `/database/1/{container}/{environment}/tokens/*`.
    ///
    /// - Parameter path: The URL path.
    /// - Throws: ``WireError`` with ``WireError/Code/invalidPath`` naming the bad segment.
    public init(path: String) throws(WireError) {
        let pathOnly = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let segments = pathOnly.split(separator: "/").map(String.init)
        func fail(_ message: String) -> WireError {
            WireError(code: .invalidPath, message: "\(message) in path '\(path)'")
        }
        guard segments.count >= 5 else { throw fail("too few segments") }
        guard segments[1] == Self.version else { throw fail("unsupported version '\(segments[1])'") }
        guard let environment = Environment(rawValue: segments[3]) else {
            throw fail("unknown environment '\(segments[3])'")
        }
        let module = segments[0]
        var rest = segments[4...]
        var database: DatabaseScope?
        if module == "database", let scope = DatabaseScope(rawValue: rest[rest.startIndex]) {
            database = scope
            rest = rest.dropFirst()
        } else if module != "device" && !(module == "database" && rest.first == "tokens") {
            throw fail(module == "database" ? "unknown database '\(rest[rest.startIndex])'" : "unknown module '\(module)'")
        }
        let name = rest.joined(separator: "/")
        guard let operation = EndpointOperation(rawValue: name) else { throw fail("unknown operation '\(name)'") }
        if module == "device" && operation.module != .device {
            throw fail("operation '\(name)' is not served under /device/")
        }
        if operation.module == .database && database == nil { throw fail("missing database segment") }
        self.init(container: segments[2], environment: environment, database: database, operation: operation)
    }
}
