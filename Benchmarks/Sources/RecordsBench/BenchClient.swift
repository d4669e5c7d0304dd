import BenchSupport
import Foundation
import StratusServer

/// One connection to the benchmark server, as a CloudKit JS client makes its requests: with web
/// auth (`--auth web`), each database request carries the API token and the web auth token the
/// previous reply issued (`X-Apple-CloudKit-Web-Auth-Token`), so the server opens a token it never
/// saw before and seals a fresh one every time; in open mode, the bare request.
///
/// Not thread-safe, like the connection it wraps: each client thread owns one.
final class BenchClient {
    let connection: LoopbackHTTPClient
    /// `?ckAPIToken=…&ckWebAuthToken=`, to which the current token is appended; `nil` in open mode.
    private let credentials: String?
    private var webAuthToken: String

    init(port: UInt16, webAuth: WebAuthAccount.Session? = nil) throws {
        connection = try LoopbackHTTPClient(port: port)
        credentials = webAuth.map { "?ckAPIToken=\($0.apiToken)&ckWebAuthToken=" }
        webAuthToken = webAuth?.webAuthToken ?? ""
    }

    /// Sends one request to `target` (a path without a query string), with the credentials of a
    /// signed-in user when the server requires them, and keeps the token the reply issued.
    func send(_ method: String, _ target: String, body: [UInt8] = []) throws -> LoopbackHTTPClient.Response {
        guard let credentials, target.hasPrefix("/database/") else { return try connection.send(method, target, body: body) }
        let reply = try connection.send(method, target + credentials + percentEncoded(base64: webAuthToken), body: body)
        if let next = reply.webAuthToken { webAuthToken = next }
        return reply
    }
}

/// The user and API token of a server that requires authentication.
struct WebAuthAccount: Sendable {
    /// What a client signed in as the user sends: the API token and a session's first web auth token.
    struct Session: Sendable {
        var apiToken: String
        var webAuthToken: String
    }

    let administration: AccountAdministration
    let userRecordName: String
    let apiToken: String
    let container: String

    /// Creates a user and an API token for `container`'s development environment.
    static func create(_ administration: AccountAdministration?, container: String) async throws -> WebAuthAccount {
        guard let administration else { throw BenchFailure("a server without accounts cannot sign anyone in") }
        let user = try await administration.createUser(email: "bench@example.com", password: "bench-password-1")
        let (apiToken, _) = try await administration.createAPIToken(container: container, environment: .development, name: "bench")
        return WebAuthAccount(administration: administration, userRecordName: user.userRecordName, apiToken: apiToken, container: container)
    }

    /// A new session of the user (a device signing in): its first web auth token.
    func newSession() async throws -> Session {
        Session(apiToken: apiToken, webAuthToken: try await administration.webAuthToken(for: userRecordName, container: container))
    }
}
