public import Foundation
public import StratusServer
public import StratusWire
import StratusCrypto
import StratusServerCrypto

/// Helpers for tests of accounts and authentication: a server that requires credentials,
/// users with tokens, and requests with exact query parameters and headers.
///
/// ```swift
/// let server = try await TestCloudKitServer.startAuthenticated()
/// let ada = try await server.signedInUser("ada@example.com")
/// let reply = try await server.exchange("zones/list", method: "GET", query: ada.query)
/// #expect(reply.status == 200)
/// ```
extension TestCloudKitServer {
    /// Starts a server that requires authentication, with cheap password hashing for speed.
    ///
    /// - Parameters:
    ///   - backend: The storage engine.
    ///   - containers: Containers to create before serving.
    ///   - configure: Adjusts the configuration further.
    public static func startAuthenticated(
        backend: RecordStoreBackend = .sqlite, containers: [String] = [container],
        configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) async throws -> TestCloudKitServer {
        try await start(backend: backend, containers: containers) { configuration in
            configuration.authentication.requiresAuthentication = true
            configuration.authentication.passwordHashing = .minimum
            configure(&configuration)
        }
    }

    /// The service clock's current reading, in milliseconds since 1970 (the clock moves 1 ms per reading).
    public var now: Int64 { clock.now() }

    /// Moves the service clock forward.
    public func advanceClock(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        clock.advance(by: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    }

    /// The account administration, failing if the back end has none.
    public func admin() throws -> AccountAdministration {
        guard let administration else { throw TestServerFailure(description: "this back end keeps no accounts") }
        return administration
    }

    /// A user with an API token and a web auth token for the default container's development environment.
    public struct SignedInUser: Sendable {
        /// The account.
        public var account: UserAccount
        /// The password it was created with.
        public var password: String
        /// An API token of the container.
        public var apiToken: String
        /// A web auth token of a session of this user.
        public var webAuthToken: String

        /// `ckAPIToken` and `ckWebAuthToken`.
        public var query: [(String, String)] { [("ckAPIToken", apiToken), ("ckWebAuthToken", webAuthToken)] }
        /// The user record name.
        public var recordName: String { account.userRecordName }
    }

    /// Creates a user (password `password-<email>`), an API token and a session.
    public func signedInUser(
        _ email: String, discoverable: Bool = false, names: NameComponents = NameComponents(), keepSignedIn: Bool = false
    ) async throws -> SignedInUser {
        let admin = try admin()
        let password = "password-" + email
        let account = try await admin.createUser(email: email, password: password, nameComponents: names, discoverable: discoverable)
        let (apiToken, _) = try await admin.createAPIToken(container: Self.container, environment: .development, name: "test")
        let webAuthToken = try await admin.webAuthToken(for: account.userRecordName, container: Self.container, keepSignedIn: keepSignedIn)
        return SignedInUser(account: account, password: password, apiToken: apiToken, webAuthToken: webAuthToken)
    }

    /// A new API token of the default container.
    public func makeAPIToken(environment: Environment = .development, signInCallbackURL: String? = nil) async throws -> String {
        try await admin().createAPIToken(
            container: Self.container, environment: environment, name: "test", signInCallbackURL: signInCallbackURL
        ).token
    }

    /// What came back from ``exchange(_:method:body:database:query:headers:environment:container:)``.
    public struct Reply: Sendable {
        /// The HTTP status.
        public var status: Int
        /// Header fields by lowercased name.
        public var headers: [String: String]
        /// The body.
        public var body: Data

        /// The body parsed as JSON (`null` if it is not JSON).
        public var json: JSONValue { (try? JSONValue(parsing: body)) ?? .null }
        /// The body as text.
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The `serverErrorCode` of an error body.
        public var serverErrorCode: String? {
            if case .object(let object) = json, case .string(let code)? = object["serverErrorCode"] { return code }
            return nil
        }
    }

    /// Sends one request over a fresh socket, with exactly these query parameters (percent-encoded
    /// as RFC 3986 unreserved characters) and headers.
    ///
    /// - Parameters:
    ///   - operation: Such as `records/modify`, or a path starting with `/` for non-database routes.
    ///   - method: `POST` by default.
    ///   - body: The raw body; empty for none.
    ///   - database: `private` by default.
    ///   - query: Query parameters in order.
    ///   - headers: Extra header fields.
    public func exchange(
        _ operation: String, method: String = "POST", body: Data = Data(), database: String = "private",
        query: [(String, String)] = [], headers: [String: String] = [:], environment: String = "development",
        container: String = container
    ) async throws -> Reply {
        var target = operation.hasPrefix("/") ? operation : Self.path(operation, database: database, environment: environment, container: container)
        if !query.isEmpty {
            target += "?" + query.map { "\($0.0)=\(Self.percentEncoded($0.1))" }.joined(separator: "&")
        }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(http.port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        let reply = try await RawHTTPConnection.exchange(port: http.port, bytes: Data(head.utf8) + body, timeout: 30)
        guard let status = reply.status else { throw TestServerFailure(description: "\(operation): no HTTP response") }
        var fields: [String: String] = [:]
        for line in reply.head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Reply(status: status, headers: fields, body: Data(reply.body))
    }

    /// ``exchange(_:method:body:database:query:headers:environment:container:)`` with a text body.
    public func exchange(
        _ operation: String, _ body: String, database: String = "private", query: [(String, String)] = [],
        headers: [String: String] = [:], environment: String = "development"
    ) async throws -> Reply {
        try await exchange(operation, body: Data(body.utf8), database: database, query: query, headers: headers, environment: environment)
    }

    /// `/database/1/<container>/<environment>/<database>/<operation>`.
    public static func path(_ operation: String, database: String, environment: String = "development", container: String = container) -> String {
        "/database/1/\(container)/\(environment)/\(database)/\(operation)"
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    public static func percentEncoded(_ value: String) -> String {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? value
    }
}
