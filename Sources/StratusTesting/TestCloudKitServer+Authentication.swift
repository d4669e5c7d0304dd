public import Foundation
public import StratusServer
public import StratusWire
import StratusCrypto
import StratusServerCrypto
import Synchronization

/// Helpers for tests of accounts and authentication: the service clock, users with tokens, API tokens.
///
/// ```swift
/// let server = try await TestCloudKitServer.startAuthenticated()
/// let ada = try await server.signedInUser("ada@example.com")
/// let reply = try await server.exchange("zones/list", method: "GET", query: ada.query)
/// #expect(reply.status == 200)
/// ```
extension TestCloudKitServer {
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

}

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
