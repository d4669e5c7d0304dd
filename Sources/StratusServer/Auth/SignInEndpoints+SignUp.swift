import Foundation
import StratusHTTP
import StratusLogging
import StratusWire

/// Creating an account: `POST /signup` sends a verification link, `GET /verify` and `POST /verify`
/// turn it into an account with a verified address (design note 0006, "Sign-up").
///
/// A sign-up stores nothing and answers the same whether or not the address has an account, in
/// the same time (no account is read or written, no password hashed): only the owner of the
/// address learns, from the link, whether an account exists.
extension SignInEndpoints {
    /// `POST /signup`.
    static let signUpPath = "/signup"
    /// `GET` and `POST /verify`.
    static let verifyPath = "/verify"
    /// The query parameter of a verification link's ticket.
    static let ticketParameter = "ticket"

    func registerSignUp(on router: inout Router) {
        router.route(.post, Self.signUpPath, maximumBodySize: Self.formBodyLimit) { request in
            try await signUpSubmitted(SignInSubmission(request))
        }
        router.route(.get, Self.verifyPath) { request in
            try await verificationPage(request)
        }
        router.route(.post, Self.verifyPath, maximumBodySize: Self.formBodyLimit) { request in
            try await verificationSubmitted(SignInSubmission(request))
        }
    }

    /// Sends a verification link to the address, whatever the address; the answer never says whether it has an account.
    private func signUpSubmitted(_ form: SignInSubmission) async throws -> HTTPResponse {
        let record: APITokenRecord
        switch try await admitForm(form, kind: .signUp) {
        case .success(let admitted): record = admitted
        case .failure(let refusal): return refusal.response
        }
        let apiToken = form.apiToken ?? ""
        let kind: SignInPage.Kind = authentication.allowsSignUp ? .signUp : .signIn
        let page = SignInPage.Form(apiToken: apiToken, container: record.container, csrf: "", kind: kind, email: form.fields["email"] ?? "")
        do {
            guard authentication.allowsSignUp else {
                throw AccountError(.invalidArgument, "this server does not allow creating accounts; ask its administrator")
            }
            let email = try Authenticator.normalizedEmail(form.fields["email"] ?? "")
            if let wait = authenticator.throttle.admit(account: email, address: form.address, now: authenticator.now()) {
                throw AccountError(.throttled, "too many attempts; try again in \(wait) s", retryAfter: wait)
            }
            let ticket = SignUpTicketCodec.Ticket(
                email: email, givenName: Self.name(form.fields["givenName"]), familyName: Self.name(form.fields["familyName"]),
                discoverable: Self.isOn(form.fields["discoverable"]), issuedAt: authenticator.now()
            )
            try await sendVerificationLink(ticket, apiToken: apiToken, container: record.container, form.request)
            if form.wantsJSON {
                return try .json(["status": "verificationSent", "emailAddress": email], status: HTTPStatus(code: 202))
            }
            return Self.html(
                SignInPage.message(
                    "Check your e-mail",
                    "If \(email) can be used for a new account, a link to finish is on its way to it. Follow it within "
                        + "\(authentication.verificationLinkLifetime.milliseconds / 3_600_000) hours to choose your password."
                )
            )
        } catch let error as AccountError {
            return try refuse(form, error, page)
        }
    }

    private func sendVerificationLink(
        _ ticket: SignUpTicketCodec.Ticket, apiToken: String, container: String, _ request: HTTPRequest
    ) async throws {
        let link =
            baseURL.base(for: request) + Self.verifyPath + "?" + Authenticator.apiTokenParameter + "=" + URLText.queryValue(apiToken)
            + "&" + Self.ticketParameter + "=" + URLText.queryValue(try authenticator.signUpTickets.seal(ticket))
        let message = VerificationMessage(
            emailAddress: ticket.email, link: link,
            expiresAt: ticket.issuedAt + authentication.verificationLinkLifetime.milliseconds, container: container
        )
        do {
            try await authentication.verificationDelivery.deliver(message, logger: logger)
        } catch {
            logger.error("could not deliver the verification link for \(ticket.email): \(error)", metadata: ["request-id": request.requestID])
            throw AccountError(.deliveryFailed, "the link could not be sent just now; try again later")
        }
    }

    /// The live ticket of a verification link, or `nil` if it is forged, malformed or expired.
    private func liveTicket(_ text: String?) -> SignUpTicketCodec.Ticket? {
        guard let text, let ticket = authenticator.signUpTickets.open(text) else { return nil }
        let age = authenticator.now() - ticket.issuedAt
        return age >= -60_000 && age <= authentication.verificationLinkLifetime.milliseconds ? ticket : nil
    }

    private static let linkNotValid = SignInPage.message(
        "Link not valid", "This link is not valid or has expired. Create your account again to get a new one."
    )

    private static func accountExists(_ email: String) -> String {
        SignInPage.message("Account exists", "An account with the e-mail address \(email) already exists: sign in with its password.")
    }

    /// `GET /verify`: the choose-a-password form for a live link.
    private func verificationPage(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let apiToken = request.query[Authenticator.apiTokenParameter], let record = try await liveAPIToken(apiToken),
            let ticketText = request.query[Self.ticketParameter], let ticket = liveTicket(ticketText)
        else { return Self.html(Self.linkNotValid, status: .badRequest) }
        let email = ticket.email
        if let existing = try await authenticator.accounts.readAccounts({ try $0.user(emailAddress: email) }), existing.isEmailVerified {
            return Self.html(Self.accountExists(email))
        }
        return try formResponse(
            request,
            SignInPage.Form(apiToken: apiToken, container: record.container, csrf: "", kind: .verify(ticket: ticketText), email: email)
        )
    }

    /// `POST /verify`: makes the account for the verified address (or, for an account from before
    /// verification existed, hands it to the address's owner), then signs in.
    private func verificationSubmitted(_ form: SignInSubmission) async throws -> HTTPResponse {
        let ticketText = form.fields[Self.ticketParameter] ?? ""
        let record: APITokenRecord
        switch try await admitForm(form, kind: .verify(ticket: ticketText)) {
        case .success(let admitted): record = admitted
        case .failure(let refusal): return refusal.response
        }
        guard let ticket = liveTicket(ticketText) else {
            if form.wantsJSON { throw ServiceError.badRequest("the verification ticket is not valid or has expired") }
            return Self.html(Self.linkNotValid, status: .badRequest)
        }
        let page = SignInPage.Form(
            apiToken: form.apiToken ?? "", container: record.container, csrf: "", kind: .verify(ticket: ticketText), email: ticket.email
        )
        let user: UserAccount
        do {
            if let wait = authenticator.throttle.admit(account: ticket.email, address: form.address, now: authenticator.now()) {
                throw AccountError(.throttled, "too many attempts; try again in \(wait) s", retryAfter: wait)
            }
            let password = form.fields["password"] ?? ""
            try authenticator.checkPasswordLength(password)
            guard let made = try await authenticator.createVerifiedUser(ticket, password: password) else {
                if form.wantsJSON { throw ServiceError(.exists, "an account with the e-mail address \(ticket.email) already exists") }
                return Self.html(Self.accountExists(ticket.email), status: .badRequest)
            }
            user = made
        } catch let error as AccountError {
            return try refuse(form, error, page)
        }
        authenticator.throttle.recordSuccess(account: ticket.email, address: form.address)
        return try await handBack(form, record: record, user: user)
    }

    /// A name from the sign-up form: trimmed, at most ``SignUpTicketCodec/maximumNameLength`` characters, `nil` if empty.
    private static func name(_ value: String?) -> String? {
        guard let value = value?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
        return String(value.prefix(SignUpTicketCodec.maximumNameLength))
    }
}
