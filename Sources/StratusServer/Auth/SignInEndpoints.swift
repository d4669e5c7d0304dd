import Foundation
import StratusHTTP
import StratusLogging
import StratusWire

/// The sign-in flow: `GET /signin`, `POST /signin`, `POST /signup`, `GET /verify`, `POST /verify`
/// and `POST /signout` (design note 0006).
///
/// Served only when authentication is required; the 421 `redirectURL` points at `GET /signin`.
struct SignInEndpoints: EndpointGroup {
    /// The path of the sign-in page.
    static let signInPath = "/signin"
    /// The largest sign-in form accepted.
    static let formBodyLimit = 16 << 10

    let authenticator: Authenticator
    let authentication: AuthenticationConfiguration
    let baseURL: PublicBaseURL
    let logger: Logger

    func register(on router: inout Router) {
        router.route(.get, Self.signInPath) { request in
            try await signInPage(request)
        }
        router.route(.post, Self.signInPath, maximumBodySize: Self.formBodyLimit) { request in
            try await signInSubmitted(SignInSubmission(request))
        }
        registerSignUp(on: &router)
        router.route(.post, "/signout", maximumBodySize: Self.formBodyLimit) { request in
            let fields = SignInPage.formFields(request.body)
            guard let token = fields[Authenticator.webAuthTokenParameter] ?? request.query[Authenticator.webAuthTokenParameter],
                try await authenticator.signOut(webAuthToken: token)
            else { throw authenticator.failure("sign-out with a token this server did not issue", request) }
            return .json(bytes: Data("{}".utf8))
        }
    }

    /// The paths of the sign-in flow's pages, which no other origin may read (CORS).
    static let flowPaths: Set<String> = [signInPath, signUpPath, verifyPath]

    private func signInPage(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let token = request.query[Authenticator.apiTokenParameter], let record = try await liveAPIToken(token) else {
            return Self.html(
                SignInPage.message("Sign-in link not valid", "This link has no valid API token; ask the app for a new sign-in link."),
                status: .badRequest
            )
        }
        guard Self.canHandBackToBrowsers(record) else { return Self.html(SignInPage.notConfiguredForBrowsers(), status: .badRequest) }
        let creating = request.query["create"] == "1" && authentication.allowsSignUp
        return try formResponse(request, SignInPage.Form(apiToken: token, container: record.container, csrf: "", kind: creating ? .signUp : .signIn))
    }

    func liveAPIToken(_ token: String) async throws -> APITokenRecord? {
        let hash = Authenticator.hash(token)
        let record = try await authenticator.accounts.readAccounts { try $0.apiToken(hash: hash) }
        return record?.revokedAt == nil ? record : nil
    }

    /// Whether the sign-in page can give a browser app its token: through the API token's sign-in
    /// callback, or by `postMessage` to one of its allowed origins (never to any origin).
    static func canHandBackToBrowsers(_ record: APITokenRecord) -> Bool {
        record.signInCallbackURL != nil || !record.allowedOrigins.isEmpty
    }

    /// A posted sign-in, sign-up or verification form.
    struct SignInSubmission {
        var request: HTTPRequest
        var fields: [String: String]
        /// `Accept: application/json`: a script, answered with JSON only (never a redirect or a hand-back page).
        var wantsJSON: Bool

        init(_ request: HTTPRequest) {
            self.request = request
            fields = SignInPage.formFields(request.body)
            wantsJSON = request.headers["Accept"]?.contains("application/json") == true
        }

        var apiToken: String? { fields[Authenticator.apiTokenParameter] ?? request.query[Authenticator.apiTokenParameter] }
        var address: String { request.remoteAddress ?? "unknown" }
    }

    /// The form's API token record, and the anti-forgery check, before anything else is looked at.
    ///
    /// A form posted by a browser must carry the anti-forgery field matching its cookie
    /// (``SignInForgeryGuard``): otherwise a page elsewhere could sign the browser in to an account
    /// of its choosing. A script's post (`Accept: application/json`) is answered only with JSON in
    /// the response body, which changes nothing in a browser, so it needs no such field.
    ///
    /// - Returns: The record, or the response that refuses the form.
    func admitForm(
        _ form: SignInSubmission, kind: SignInPage.Kind
    ) async throws -> Result<APITokenRecord, FormRefusal> {
        guard let apiToken = form.apiToken, let record = try await liveAPIToken(apiToken) else {
            let error = authenticator.failure("sign-in with an unknown or revoked API token", form.request)
            if form.wantsJSON { throw error }
            return .failure(FormRefusal(Self.html(SignInPage.message("Sign-in link not valid", "This form has no valid API token."), status: .unauthorized)))
        }
        guard form.wantsJSON || authenticator.forms.isGenuine(form.request, fields: form.fields) else {
            authenticator.logger.notice(
                "refused a sign-in form without a valid anti-forgery token from \(form.address)", metadata: ["request-id": form.request.requestID]
            )
            var page = SignInPage.Form(apiToken: apiToken, container: record.container, csrf: "", kind: kind, email: form.fields["email"] ?? "")
            page.message = "This form expired or did not come from this server. Please try again."
            return .failure(FormRefusal(try formResponse(form.request, page, status: .forbidden)))
        }
        return .success(record)
    }

    /// A response that refuses a form.
    struct FormRefusal: Error {
        var response: HTTPResponse
        init(_ response: HTTPResponse) { self.response = response }
    }

    /// Signs in and hands the web auth token back: to the API token's sign-in callback URL, by
    /// `postMessage` to its allowed origins, or as JSON when the client asks for it.
    private func signInSubmitted(_ form: SignInSubmission) async throws -> HTTPResponse {
        let record: APITokenRecord
        switch try await admitForm(form, kind: .signIn) {
        case .success(let admitted): record = admitted
        case .failure(let refusal): return refusal.response
        }
        guard form.wantsJSON || Self.canHandBackToBrowsers(record) else {
            return Self.html(SignInPage.notConfiguredForBrowsers(), status: .badRequest)
        }
        let email = form.fields["email"] ?? ""
        let user: UserAccount
        do {
            user = try await authenticator.signIn(email: email, password: form.fields["password"] ?? "", address: form.address)
        } catch let error as AccountError {
            var page = SignInPage.Form(apiToken: form.apiToken ?? "", container: record.container, csrf: "", email: email)
            page.allowsSignUp = authentication.allowsSignUp
            return try refuse(form, error, page)
        }
        return try await handBack(form, record: record, user: user)
    }

    /// Opens a session for `user` and hands its token to the client the way the API token says.
    func handBack(
        _ form: SignInSubmission, record: APITokenRecord, user: UserAccount
    ) async throws -> HTTPResponse {
        guard form.wantsJSON || Self.canHandBackToBrowsers(record) else {
            return Self.html(SignInPage.message("Account ready", "Your account is ready. Go back to the app and sign in there."))
        }
        let token = try await authenticator.openSession(for: user, container: record.container, keepSignedIn: Self.isOn(form.fields["keepSignedIn"]))
        if form.wantsJSON {
            return try .json(["ckWebAuthToken": token, "userRecordName": user.userRecordName])
        }
        if let callback = record.signInCallbackURL {
            var response = HTTPResponse(status: HTTPStatus(code: 303))
            let separator = callback.contains("?") ? "&" : "?"
            response.headers.replaceOrAdd("Location", callback + separator + "ckWebAuthToken=" + URLText.queryValue(token))
            response.headers.replaceOrAdd("Cache-Control", "no-store")
            return response
        }
        return Self.html(SignInPage.handBack(token: token, origins: record.allowedOrigins))
    }

    /// The answer to a refused sign-in, sign-up or verification: JSON for scripts, else the form again with the message.
    func refuse(
        _ form: SignInSubmission, _ error: AccountError, _ page: SignInPage.Form
    ) throws -> HTTPResponse {
        if form.wantsJSON {
            switch error.code {
            case .throttled: throw ServiceError(.throttled, error.message, retryAfter: error.retryAfter)
            case .invalidCredentials: throw ServiceError(.authenticationFailed, error.message)
            case .accountDisabled: throw ServiceError(.accessDenied, error.message)
            case .deliveryFailed: throw ServiceError(.internalError, error.message)
            default: throw ServiceError.badRequest(error.message)
            }
        }
        var page = page
        page.message = error.message
        let status: HTTPStatus =
            switch error.code {
            case .throttled: .tooManyRequests
            case .invalidCredentials: .unauthorized
            case .accountDisabled: .forbidden
            case .deliveryFailed: .internalServerError
            default: .badRequest
            }
        var response = try formResponse(form.request, page, status: status)
        if let retryAfter = error.retryAfter { response.headers.replaceOrAdd("Retry-After", String(retryAfter)) }
        return response
    }

    /// A form page with a fresh anti-forgery field (and its cookie, if the browser has none yet).
    func formResponse(
        _ request: HTTPRequest, _ form: SignInPage.Form, status: HTTPStatus = .ok
    ) throws -> HTTPResponse {
        let token = try authenticator.forms.token(for: request)
        var form = form
        form.csrf = token.field
        if form.kind == .signIn { form.allowsSignUp = authentication.allowsSignUp }
        var response = Self.html(SignInPage.form(form), status: status)
        if let cookie = token.cookie {
            response.headers.add("Set-Cookie", SignInForgeryGuard.setCookie(cookie, secure: baseURL.base(for: request).hasPrefix("https://")))
        }
        return response
    }

    static func html(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        var response = HTTPResponse.text(text, status: status, contentType: "text/html; charset=utf-8")
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        response.headers.replaceOrAdd("X-Frame-Options", "DENY")
        response.headers.replaceOrAdd("X-Content-Type-Options", "nosniff")
        response.headers.replaceOrAdd("Referrer-Policy", "no-referrer")
        response.headers.replaceOrAdd(
            "Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; form-action 'self'")
        return response
    }

    static func isOn(_ value: String?) -> Bool {
        ["on", "true", "1", "yes"].contains(value?.lowercased() ?? "")
    }
}
