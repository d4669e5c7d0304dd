import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusConsole
import StratusServerCrypto
import StratusHTTP
import StratusMetrics
import StratusServer
import StratusTesting
import StratusWire

/// A live server with the console, composed as `stratus serve` composes it (CORS refused to the
/// console's paths), on 127.0.0.1; authentication on, with one administrator and one app user.
final class ConsoleTestServer: Sendable {
    static let adminEmail = "root@example.com"
    static let adminPassword = "correct horse battery staple"

    let cloudKit: TestCloudKitServer
    let http: TestHTTPServer
    let console: Console
    let administration: ConsoleAdministration
    let store: any ConsoleStore

    private init(cloudKit: TestCloudKitServer, http: TestHTTPServer, console: Console, administration: ConsoleAdministration, store: any ConsoleStore) {
        self.cloudKit = cloudKit
        self.http = http
        self.console = console
        self.administration = administration
        self.store = store
    }

    /// Starts the server; `configure` adjusts the console's configuration.
    static func start(
        backend: RecordStoreBackend = .sqlite, configure: (inout ConsoleConfiguration) -> Void = { _ in }
    ) async throws -> ConsoleTestServer {
        var serviceConfiguration = ServiceConfiguration(tokenSecret: Data(repeating: 7, count: 32))
        let cloudKit = try await TestCloudKitServer.startAuthenticated(backend: backend) { serviceConfiguration = $0 }
        guard let store = cloudKit.store as? any ConsoleStore & AccountStore else { throw ConsoleTestFailure("no console store") }
        var configuration = ConsoleConfiguration()
        configuration.passwordHashing = .minimum
        configure(&configuration)
        let console = Console(
            service: cloudKit.service, records: cloudKit.store, accounts: store, console: store, serviceConfiguration: serviceConfiguration,
            metrics: MetricsRegistry(), configuration: configuration
        )
        var router = Router()
        router.use(console.requestLog)
        router.use(console.guard)
        let service = cloudKit.service
        router.use(CORSMiddleware { origin, request in !Console.owns(request.path) && service.isOriginAllowed(origin, for: request) })
        service.register(on: &router)
        console.register(on: &router)
        let http = try TestHTTPServer(responder: router)
        let administration = ConsoleAdministration(store: store, configuration: configuration)
        _ = try await administration.create(email: adminEmail, password: adminPassword)
        return ConsoleTestServer(cloudKit: cloudKit, http: http, console: console, administration: administration, store: store)
    }

    func stop() async {
        await http.stop()
        await cloudKit.stop()
    }

    /// One exchange with the console: status, headers and body.
    struct Reply: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data

        var text: String { String(decoding: body, as: UTF8.self) }
        func json() throws -> [String: Any] { try JSONSerialization.jsonObject(with: body) as? [String: Any] ?? [:] }
        func header(_ name: String) -> String? { headers.first { $0.key.lowercased() == name.lowercased() }?.value }
    }

    /// A session that neither stores nor sends cookies (cookies ignore ports: tests running side by
    /// side would otherwise send each other's), so each request carries exactly the cookie it names.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        return URLSession(configuration: configuration)
    }()

    /// Sends a request to the console with exactly the cookie given.
    func send(
        _ method: String, _ path: String, body: String? = nil, cookie: String? = nil, csrf: String? = nil,
        contentType: String? = "application/json", headers: [String: String] = [:]
    ) async throws -> Reply {
        var request = URLRequest(url: http.url(path))
        request.httpMethod = method
        request.httpShouldHandleCookies = false
        if let body { request.httpBody = Data(body.utf8) }
        if let cookie { request.setValue("\(ConsoleSession.cookieName)=\(cookie)", forHTTPHeaderField: "Cookie") }
        if let csrf { request.setValue(csrf, forHTTPHeaderField: "X-CSRF-Token") }
        if let contentType, body != nil { request.setValue(contentType, forHTTPHeaderField: "Content-Type") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await Self.session.data(for: request)
        let http = response as? HTTPURLResponse
        var fields: [String: String] = [:]
        for (key, value) in http?.allHeaderFields ?? [:] { fields[String(describing: key)] = String(describing: value) }
        return Reply(status: http?.statusCode ?? 0, headers: fields, body: data)
    }

    /// A signed-in administrator: the cookie's token and the anti-forgery token.
    struct Session: Sendable {
        var cookie: String
        var csrf: String
    }

    func signIn(email: String = adminEmail, password: String = adminPassword) async throws -> Session {
        let reply = try await send("POST", "/console/api/signin", body: Self.json(["email": email, "password": password]))
        guard reply.status == 200, let setCookie = reply.header("Set-Cookie"), let csrf = try reply.json()["csrfToken"] as? String else {
            throw ConsoleTestFailure("sign-in answered \(reply.status): \(reply.text)")
        }
        let token = setCookie.split(separator: ";")[0].split(separator: "=", maxSplits: 1)[1]
        return Session(cookie: String(token), csrf: csrf)
    }

    static func json(_ object: Any) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object)) ?? Data(), as: UTF8.self)
    }
}

struct ConsoleTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension ConsoleSession {
    static let cookieName = "stratus_console"
}
