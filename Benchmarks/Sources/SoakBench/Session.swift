import BenchSupport
import Foundation

/// One client of the soak: a keep-alive connection, the API token and a signed-in user's web auth
/// token, which it replaces with the refreshed one each reply carries, as a CloudKit client does.
/// Confined to the thread that made it.
///
/// ```swift
/// let session = try Session(port: server.port, apiToken: token, webAuthToken: webAuth, recorder: recorder)
/// session.expectSuccess("query", "POST", session.target("records/query"), body: queryBody)
/// ```
final class Session {
    static let refreshedTokenHeader = "x-apple-cloudkit-web-auth-token"
    static let container = SoakServer.container

    private var client: LoopbackHTTPClient
    let port: UInt16
    let apiToken: String
    var webAuthToken: String?
    let recorder: Recorder

    init(port: UInt16, apiToken: String, webAuthToken: String?, recorder: Recorder) throws {
        self.port = port
        self.apiToken = apiToken
        self.webAuthToken = webAuthToken
        self.recorder = recorder
        client = try LoopbackHTTPClient(port: port)
        client.capturing = [Self.refreshedTokenHeader]
    }

    /// The request target of a CloudKit operation (`records/modify`…) with this session's credentials.
    func target(_ operation: String, database: String = "private") -> String {
        "/database/1/\(Self.container)/development/\(database)/\(operation)" + credentials
    }

    /// The request target of a device operation (`tokens/create`…).
    func deviceTarget(_ operation: String) -> String {
        "/device/1/\(Self.container)/development/\(operation)" + credentials
    }

    private var credentials: String {
        "?ckAPIToken=\(apiToken)" + (webAuthToken.map { "&ckWebAuthToken=\(Self.queryEscaped($0))" } ?? "")
    }

    static func queryEscaped(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// One exchange and its latency in nanoseconds; a refreshed web auth token replaces the one in use.
    /// A broken connection is replaced before the error is rethrown.
    func exchange(
        _ method: String, _ target: String, body: [UInt8] = [], headers: [(String, String)] = []
    ) throws -> (
        LoopbackHTTPClient.Response, Double
    ) {
        let start = monotonicNanoseconds()
        do {
            let reply = try client.send(method, target, body: body, headers: headers)
            if webAuthToken != nil, let refreshed = reply.captured[Self.refreshedTokenHeader] { webAuthToken = refreshed }
            return (reply, Double(monotonicNanoseconds() - start))
        } catch {
            client = try LoopbackHTTPClient(port: port)
            client.capturing = [Self.refreshedTokenHeader]
            throw error
        }
    }

    /// Sends a request that should succeed (200, no `serverErrorCode` anywhere in the body): its
    /// latency goes to `kind`, or an unexpected error if it failed. Returns the reply when it succeeded.
    @discardableResult
    func expectSuccess(
        _ kind: String, _ method: String, _ target: String, body: [UInt8] = [], headers: [(String, String)] = []
    )
        -> LoopbackHTTPClient.Response?
    {
        do {
            let (reply, nanoseconds) = try exchange(method, target, body: body, headers: headers)
            guard reply.status == 200, !reply.body.contains("serverErrorCode") else {
                recorder.unexpected(kind, "\(reply.status) \(reply.text)")
                return nil
            }
            recorder.succeeded(kind, nanoseconds: nanoseconds)
            return reply
        } catch {
            recorder.unexpected(kind, "\(error)")
            return nil
        }
    }

    /// Sends a request the workload makes fail on purpose: counted as provoked when the reply has
    /// `status` and names `code`, as unexpected otherwise.
    func expectFailure(_ kind: String, status: Int, code: String, _ method: String, _ target: String, body: [UInt8] = [], headers: [(String, String)] = []) {
        do {
            let (reply, _) = try exchange(method, target, body: body, headers: headers)
            if reply.status == status, reply.body.contains("\"serverErrorCode\":\"\(code)\"") {
                recorder.provoked(kind)
            } else {
                recorder.unexpected(kind, "expected \(status) \(code), got \(reply.status) \(reply.text)")
            }
        } catch {
            recorder.unexpected(kind, "\(error)")
        }
    }
}
