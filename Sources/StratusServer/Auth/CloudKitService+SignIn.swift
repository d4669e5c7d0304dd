import Foundation
import StratusHTTP
import StratusWire

extension CloudKitService {
    /// The largest sign-in form accepted.
    private static let formBodyLimit = 16 << 10

    /// Adds the sign-in flow: `GET /signin`, `POST /signin`, `POST /signup` and `POST /signout`.
    ///
    /// Only when authentication is required; the 421 `redirectURL` points at `GET /signin`.
    func registerSignIn(on router: inout Router) {
        guard let authenticator, configuration.authentication.requiresAuthentication else { return }
        router.route(.get, Self.signInPath) { [self] request in
            try await signInPage(request, authenticator)
        }
        router.route(.post, Self.signInPath, maximumBodySize: Self.formBodyLimit) { [self] request in
            try await signInSubmitted(request, authenticator, creating: false)
        }
        router.route(.post, "/signup", maximumBodySize: Self.formBodyLimit) { [self] request in
            try await signInSubmitted(request, authenticator, creating: true)
        }
        router.route(.post, "/signout", maximumBodySize: Self.formBodyLimit) { request in
            let fields = SignInPage.formFields(request.body)
            guard let token = fields[Authenticator.webAuthTokenParameter] ?? request.query[Authenticator.webAuthTokenParameter],
                try await authenticator.signOut(webAuthToken: token)
            else { throw authenticator.failure("sign-out with a token this server did not issue", request) }
            return .json(bytes: Data("{}".utf8))
        }
    }

    private func signInPage(_ request: HTTPRequest, _ authenticator: Authenticator) async throws -> HTTPResponse {
        guard let token = request.query[Authenticator.apiTokenParameter], let record = try await liveAPIToken(token, authenticator) else {
            return Self.html(
                SignInPage.message("Sign-in link not valid", "This link has no valid API token; ask the app for a new sign-in link."),
                status: .badRequest
            )
        }
        let creating = request.query["create"] == "1" && configuration.authentication.allowsSignUp
        return Self.html(SignInPage.form(SignInPage.Form(apiToken: token, container: record.container, creating: creating)))
    }

    private func liveAPIToken(_ token: String, _ authenticator: Authenticator) async throws -> APITokenRecord? {
        let hash = Authenticator.hash(token)
        let record = try await authenticator.accounts.readAccounts { try $0.apiToken(hash: hash) }
        return record?.revokedAt == nil ? record : nil
    }

    /// Signs in (or creates an account) and hands the web auth token back: to the API token's
    /// sign-in callback URL, by `postMessage` to the opener, or as JSON when the client asks for it.
    private func signInSubmitted(_ request: HTTPRequest, _ authenticator: Authenticator, creating: Bool) async throws -> HTTPResponse {
        let fields = SignInPage.formFields(request.body)
        let wantsJSON = request.headers["Accept"]?.contains("application/json") == true
        guard let apiToken = fields[Authenticator.apiTokenParameter] ?? request.query[Authenticator.apiTokenParameter],
            let record = try await liveAPIToken(apiToken, authenticator)
        else {
            let error = authenticator.failure("sign-in with an unknown or revoked API token", request)
            if wantsJSON { throw error }
            return Self.html(SignInPage.message("Sign-in link not valid", "This sign-in form has no valid API token."), status: .unauthorized)
        }
        let email = fields["email"] ?? ""
        let password = fields["password"] ?? ""
        let address = request.remoteAddress ?? "unknown"
        var form = SignInPage.Form(apiToken: apiToken, container: record.container, email: email, creating: creating)
        let user: UserAccount
        do {
            if creating {
                guard configuration.authentication.allowsSignUp else {
                    throw AccountError(.invalidArgument, "this server does not allow creating accounts; ask its administrator")
                }
                if let wait = authenticator.throttle.admit(account: "", address: address, now: authenticator.now()) {
                    throw AccountError(.throttled, "too many attempts; try again in \(wait) s", retryAfter: wait)
                }
                let names = NameComponents(givenName: Self.nonEmpty(fields["givenName"]), familyName: Self.nonEmpty(fields["familyName"]))
                user = try await authenticator.createUser(
                    email: email, password: password, nameComponents: names, discoverable: Self.isOn(fields["discoverable"])
                )
            } else {
                user = try await authenticator.signIn(email: email, password: password, address: address)
            }
        } catch let error as AccountError {
            if wantsJSON {
                switch error.code {
                case .throttled: throw ServiceError(.throttled, error.message, retryAfter: error.retryAfter)
                case .invalidCredentials: throw ServiceError(.authenticationFailed, error.message)
                default: throw ServiceError.badRequest(error.message)
                }
            }
            form.message = error.message
            let status: HTTPStatus =
                switch error.code {
                case .throttled: .tooManyRequests
                case .invalidCredentials: .unauthorized
                default: .badRequest
                }
            var response = Self.html(SignInPage.form(form), status: status)
            if let retryAfter = error.retryAfter { response.headers.replaceOrAdd("Retry-After", String(retryAfter)) }
            return response
        }
        let token = try await authenticator.openSession(for: user, container: record.container, keepSignedIn: Self.isOn(fields["keepSignedIn"]))
        if wantsJSON {
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

    private static func html(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        var response = HTTPResponse.text(text, status: status, contentType: "text/html; charset=utf-8")
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        response.headers.replaceOrAdd("X-Frame-Options", "DENY")
        response.headers.replaceOrAdd("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; form-action 'self'")
        return response
    }

    private static func isOn(_ value: String?) -> Bool {
        ["on", "true", "1", "yes"].contains(value?.lowercased() ?? "")
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }
}
