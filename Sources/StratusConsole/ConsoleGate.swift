import Foundation
import StratusCrypto
import StratusHTTP
import StratusLogging
import StratusServer
import StratusServerCrypto
import StratusWire
import Synchronization

/// A signed-in administrator making a console request.
struct ConsoleCaller: Sendable {
    let administrator: ConsoleAdministrator
    let session: ConsoleSession
}

/// The console's door: sign-in (throttled, Argon2id), the session cookie, and the anti-forgery
/// token every state-changing request must carry (Documentation/0022-console.md, "Authentication").
final class ConsoleGate: Sendable {
    /// The session cookie's name.
    static let cookieName = "stratus_console"
    /// The header carrying the session's anti-forgery token.
    static let csrfHeader = "X-CSRF-Token"

    let store: any ConsoleStore
    let configuration: ConsoleConfiguration
    let hasher: PasswordHasher
    let throttle: SignInThrottle
    let logger: Logger
    /// A hash no password matches, checked for unknown addresses so they take as long as known ones.
    private let decoyHash = Mutex<String?>(nil)

    init(store: any ConsoleStore, configuration: ConsoleConfiguration, logger: Logger) {
        self.store = store
        self.configuration = configuration
        self.hasher = PasswordHasher(configuration: configuration.passwordHashing)
        self.throttle = SignInThrottle(limits: configuration.signInLimits)
        self.logger = logger
    }

    /// Checks an address and password within the sign-in limits and opens a session.
    ///
    /// - Returns: The cookie's token (shown only now) and the session.
    /// - Throws: 401 `AUTHENTICATION_FAILED` whether the address or the password is wrong; 429 `THROTTLED`.
    func signIn(email text: String, password: String, address: String) async throws -> (token: String, caller: ConsoleCaller) {
        let email = (try? AccountAdministration.normalizedEmailAddress(text)) ?? text.lowercased()
        if let wait = throttle.admit(account: email, address: address, now: configuration.now()) {
            logger.notice("console sign-in throttled for \(email) from \(address)")
            throw ServiceError(.throttled, "too many sign-in attempts; try again in \(wait) s", retryAfter: wait)
        }
        let found = try await store.readConsole { try $0.administrator(emailAddress: email) }
        let stored: String
        if let hash = found?.passwordHash { stored = hash } else { stored = try await decoy() }
        let matches = try await hasher.verify(password, against: stored)
        guard let administrator = found, matches else {
            logger.notice("console sign-in failed for \(email) from \(address)")
            throw Self.signInFailed
        }
        throttle.recordSuccess(account: email, address: address)
        let token = try SecureRandom.base64URLToken()
        let now = configuration.now()
        let session = ConsoleSession(
            tokenHash: AccountAdministration.tokenHash(token), administratorID: administrator.id,
            csrfToken: try SecureRandom.base64URLToken(), createdAt: now, expiresAt: now + configuration.sessionLifetime.wholeMilliseconds
        )
        // Each sign-in sweeps the sessions that expired: the table holds live sessions and recent sign-outs only.
        try await store.writeConsole { tx in
            _ = try tx.deleteExpiredConsoleSessions(at: now)
            try tx.insertConsoleSession(session)
        }
        return (token, ConsoleCaller(administrator: administrator, session: session))
    }

    static let signInFailed = HTTPError(
        status: .unauthorized, serverErrorCode: "AUTHENTICATION_FAILED", reason: "the e-mail address or the password is wrong"
    )
    static let signedOut = HTTPError(
        status: .unauthorized, serverErrorCode: "AUTHENTICATION_REQUIRED", reason: "sign in to the console as an administrator"
    )
    static let forged = HTTPError(
        status: .forbidden, serverErrorCode: "ACCESS_DENIED",
        reason: "a console change needs the session's \(csrfHeader) header and a JSON body (Content-Type: application/json)"
    )

    private func decoy() async throws -> String {
        if let hash = decoyHash.withLock({ $0 }) { return hash }
        let hash = try await hasher.hash(try SecureRandom.hexToken())
        decoyHash.withLock { $0 = hash }
        return hash
    }

    /// The administrator whose live session the request's cookie names.
    ///
    /// - Throws: 401 `AUTHENTICATION_REQUIRED` without a cookie, or for an unknown, expired or
    ///   signed-out session, or a removed administrator.
    func caller(of request: HTTPRequest) async throws -> ConsoleCaller {
        guard let token = request.cookie(named: Self.cookieName), !token.isEmpty, token.utf8.count <= 128 else { throw Self.signedOut }
        let hash = AccountAdministration.tokenHash(token)
        let found = try await store.readConsole { tx -> ConsoleCaller? in
            guard let session = try tx.consoleSession(tokenHash: hash), let administrator = try tx.administrator(id: session.administratorID) else {
                return nil
            }
            return ConsoleCaller(administrator: administrator, session: session)
        }
        guard let found, found.session.revokedAt == nil, found.session.expiresAt > configuration.now() else { throw Self.signedOut }
        return found
    }

    /// Refuses a state-changing request without the session's anti-forgery token, or whose body
    /// is not declared JSON (which no cross-site form can send).
    func checkForgery(_ request: HTTPRequest, of caller: ConsoleCaller) throws {
        let presented = request.headers[Self.csrfHeader] ?? ""
        let contentType = (request.headers["Content-Type"] ?? "").lowercased()
        guard Self.constantTimeEqual(presented, caller.session.csrfToken), contentType.hasPrefix("application/json") else {
            logger.notice("console change refused: missing or wrong \(Self.csrfHeader)", metadata: ["request-id": request.requestID])
            throw Self.forged
        }
    }

    /// Signs the caller's session out.
    func signOut(_ caller: ConsoleCaller) async throws {
        let now = configuration.now()
        _ = try await store.writeConsole { try $0.revokeConsoleSession(tokenHash: caller.session.tokenHash, at: now) }
    }

    /// The `Set-Cookie` value for `token` (`nil` clears it): HttpOnly, SameSite=Strict, path `/console`,
    /// `Secure` when the server is reached over HTTPS.
    func setCookie(_ token: String?, for request: HTTPRequest) -> String {
        var cookie = "\(Self.cookieName)=\(token ?? ""); Path=/console; HttpOnly; SameSite=Strict"
        cookie += token == nil ? "; Max-Age=0" : "; Max-Age=\(configuration.sessionLifetime.wholeMilliseconds / 1000)"
        if configuration.secureCookies || request.scheme == "https" { cookie += "; Secure" }
        return cookie
    }

    /// Compares without stopping at the first difference.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        guard left.count == right.count, !left.isEmpty else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}

extension Duration {
    /// Whole milliseconds.
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
