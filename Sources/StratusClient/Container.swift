public import Foundation
public import StratusWire

/// A CloudKit container on a Stratus server (or on Apple's CloudKit Web Services).
///
/// ```swift
/// let container = Container(
///     identifier: "iCloud.com.example.Notes", environment: .development,
///     serverURL: URL(string: "https://api.apple-cloudkit.com")!,
///     authentication: .apiToken(apiToken, webAuthToken: sessionToken))
/// let zones = try await container.privateCloudDatabase.allRecordZones()
/// ```
public final class Container: Sendable {
    /// The container identifier, such as `iCloud.com.example.Notes`.
    public let identifier: String
    /// The environment requests go to.
    public let environment: StratusWire.Environment
    /// The server's base URL (scheme, host and port).
    public let serverURL: URL
    /// How requests authenticate.
    public let authentication: Authentication

    let client: ServiceClient

    /// Creates a container.
    ///
    /// - Parameters:
    ///   - identifier: The container identifier.
    ///   - environment: `development` or `production`.
    ///   - serverURL: The server's base URL; `https://api.apple-cloudkit.com` for Apple's service.
    ///   - authentication: How requests authenticate.
    ///   - configuration: Deadlines, retries and logging.
    ///   - transport: The HTTP transport; a new ``DefaultTransport`` by default (``CurlTransport`` on Linux, ``URLSessionTransport`` elsewhere).
    public init(
        identifier: String, environment: StratusWire.Environment, serverURL: URL, authentication: Authentication,
        configuration: ClientConfiguration = ClientConfiguration(), transport: (any HTTPTransport)? = nil
    ) {
        self.identifier = identifier
        self.environment = environment
        self.serverURL = serverURL
        self.authentication = authentication
        let webAuthToken: String? =
            if case .apiToken(_, let token) = authentication.scheme { token } else { nil }
        let builder = RequestBuilder(
            containerIdentifier: identifier, environment: environment, serverURL: serverURL,
            authentication: authentication, webAuthToken: WebAuthTokenStore(webAuthToken), now: configuration.now)
        self.client = ServiceClient(builder: builder, transport: transport ?? DefaultTransport.make(), configuration: configuration)
    }

    /// The signed-in user's private database.
    public var privateCloudDatabase: Database { Database(scope: .private, client: client) }
    /// The app's public database, shared by all users.
    public var publicCloudDatabase: Database { Database(scope: .public, client: client) }
    /// The zones other users shared with the signed-in user.
    public var sharedCloudDatabase: Database { Database(scope: .shared, client: client) }

    /// The database of `scope`.
    ///
    /// - Parameter scope: The database scope.
    /// - Returns: The database.
    public func database(with scope: DatabaseScope) -> Database { Database(scope: scope, client: client) }

    /// The latest web auth token: the one given at creation, replaced by each response's
    /// `X-Apple-CloudKit-Web-Auth-Token`. Persist it to resume the session later.
    public var webAuthToken: String? { client.builder.webAuthToken.current }

    /// The HTTP request the SDK would send for `operation` now, for inspection and tests.
    ///
    /// - Parameters:
    ///   - operation: The endpoint.
    ///   - database: The database scope.
    ///   - body: The wire request body.
    /// - Returns: The request, signed or carrying tokens as ``authentication`` says.
    /// - Throws: ``StratusError`` when the URL cannot be formed or signing fails.
    public func preparedRequest<E: WireEndpoint>(
        _ operation: E.Type, _ body: E.Request, in database: DatabaseScope
    ) throws -> TransportRequest {
        let data = E.operation.httpMethod == .get ? Data() : try WireCoding.encode(body)
        return try client.builder.request(E.operation, database: database, body: data, timeout: client.configuration.requestTimeout)
    }
}
