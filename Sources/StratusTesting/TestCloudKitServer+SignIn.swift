public import Foundation
public import StratusServer
import StratusWire
import Synchronization

/// Helpers for tests of the sign-in pages: browser-ready API tokens, forms with their
/// anti-forgery cookie and field, and requests with exactly the `Host` and headers a test chooses.
///
/// ```swift
/// let token = try await server.makeBrowserAPIToken(origins: ["https://app.example.com"])
/// let form = try await server.signInForm(apiToken: token)
/// let reply = try await server.submit("/signin", form: form, fields: [("email", "ada@example.com"), ("password", "…")])
/// ```
extension TestCloudKitServer {
    /// An origin tests use for browser apps.
    public static let appOrigin = "https://app.example.com"

    /// A new API token of the default container that can hand web auth tokens to a browser app:
    /// with allowed origins, and a sign-in callback if given.
    public func makeBrowserAPIToken(origins: [String] = [appOrigin], signInCallbackURL: String? = nil) async throws -> String {
        try await admin().createAPIToken(
            container: Self.container, environment: .development, name: "browser", signInCallbackURL: signInCallbackURL,
            allowedOrigins: origins
        ).token
    }

    /// A form page as a browser gets it: the page, the anti-forgery cookie it set and the field it carries.
    public struct SignInForm: Sendable {
        /// The page.
        public var page: Reply
        /// The `stratus-signin` cookie's value (`name=value`), if the page set one.
        public var cookie: String?
        /// The hidden `csrf` field's value, if the page has a form.
        public var csrf: String?
        /// The API token the form is for.
        public var apiToken: String

        /// A form from a page already fetched: its cookie and `csrf` field are read from it.
        public init(page: Reply, apiToken: String) {
            self.page = page
            self.cookie = TestCloudKitServer.signInCookie(in: page)
            self.csrf = TestCloudKitServer.hiddenField("csrf", in: page.text)
            self.apiToken = apiToken
        }
    }

    /// `GET /signin?ckAPIToken=…` (with `&create=1` for the sign-up form), or any other form page with `path`.
    public func signInForm(apiToken: String, create: Bool = false, path: String? = nil) async throws -> SignInForm {
        let target = path ?? "/signin?ckAPIToken=\(Self.percentEncoded(apiToken))" + (create ? "&create=1" : "")
        let page = try await exchange(target, method: "GET")
        return SignInForm(page: page, apiToken: apiToken)
    }

    /// Posts a form the way the browser that loaded `form` would: with its cookie, its `csrf`
    /// field and its API token, then `fields`.
    public func submit(
        _ path: String, form: SignInForm, fields: [(String, String)], headers: [String: String] = [:]
    ) async throws -> Reply {
        var all = [("ckAPIToken", form.apiToken)]
        if let csrf = form.csrf { all.append(("csrf", csrf)) }
        all += fields
        var extra = ["Content-Type": "application/x-www-form-urlencoded"]
        if let cookie = form.cookie { extra["Cookie"] = cookie }
        return try await exchange(path, body: Self.formBody(all), headers: extra.merging(headers) { $1 })
    }

    /// `application/x-www-form-urlencoded` of `fields`.
    public static func formBody(_ fields: [(String, String)]) -> Data {
        Data(fields.map { "\($0.0)=\(percentEncoded($0.1))" }.joined(separator: "&").utf8)
    }

    /// The `stratus-signin=…` pair a page's `Set-Cookie` sets, if any.
    public static func signInCookie(in reply: Reply) -> String? {
        guard let header = reply.headers["set-cookie"], header.hasPrefix("stratus-signin=") else { return nil }
        return header.split(separator: ";").first.map(String.init)
    }

    /// The value of `<input type="hidden" name="<name>" value="…">` in a page.
    public static func hiddenField(_ name: String, in html: String) -> String? {
        let marker = #"name="\#(name)" value=""#
        guard let start = html.range(of: marker)?.upperBound, let end = html[start...].firstIndex(of: "\"") else { return nil }
        return String(html[start..<end]).replacingOccurrences(of: "&amp;", with: "&")
    }

    /// Sends one request over a fresh socket with exactly this `Host` (none if `nil`) and these
    /// headers, in order — for attacks that forge `Host`, `Origin` or `X-Forwarded-For`.
    ///
    /// - Parameter source: The loopback address to connect from (`127.0.0.2`, …), so the server sees
    ///   another client; 127.0.0.1 when `nil`.
    public func rawExchange(
        _ method: String, _ target: String, host: String?, headers: [(String, String)] = [], body: Data = Data(), from source: String? = nil
    ) async throws -> Reply {
        var head = "\(method) \(target) HTTP/1.1\r\n"
        if let host { head += "Host: \(host)\r\n" }
        head += "Connection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        let bytes = Data(head.utf8) + body
        let reply =
            if let source {
                try await RawHTTPConnection.exchange(port: http.port, bytes: bytes, from: source)
            } else {
                try await RawHTTPConnection.exchange(port: http.port, bytes: bytes)
            }
        guard let status = reply.status else { throw TestServerFailure(description: "\(method) \(target): no HTTP response") }
        var fields: [String: String] = [:]
        for line in reply.head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            fields[name] = fields[name].map { $0 + ", " + value } ?? value
        }
        return Reply(status: status, headers: fields, body: Data(reply.body))
    }
}

/// Collects the verification links a server sends, in place of the operator's mail system.
///
/// ```swift
/// let inbox = VerificationInbox()
/// let server = try await TestCloudKitServer.startAuthenticated { $0.authentication.verificationDelivery = inbox.delivery }
/// // … sign up …
/// let link = try #require(inbox.messages.last?.link)
/// ```
public final class VerificationInbox: Sendable {
    private let received = Mutex<[VerificationMessage]>([])

    /// Creates an empty inbox.
    public init() {}

    /// The delivery that puts each message here.
    public var delivery: VerificationDelivery {
        .handler { [self] message in received.withLock { $0.append(message) } }
    }

    /// Every message so far, oldest first.
    public var messages: [VerificationMessage] { received.withLock { $0 } }

    /// The path and query of a link (`/verify?…`), for ``TestCloudKitServer/exchange(_:method:body:database:query:headers:environment:container:)``.
    public static func target(of link: String) -> String? {
        guard let url = URL(string: link) else { return nil }
        return url.path + (url.query.map { "?" + $0 } ?? "")
    }
}
