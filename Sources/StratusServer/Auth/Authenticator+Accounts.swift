import Foundation
import StratusCrypto
import StratusServerCrypto
import StratusLogging
import StratusWire
import Synchronization

extension Authenticator {
    /// The e-mail address trimmed and lowercased, if it looks like one.
    static func normalizedEmail(_ text: String) throws(AccountError) -> String {
        let email = text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
            !email.contains(where: { $0.isWhitespace || $0.isNewline || $0 == "<" || $0 == ">" })
        else {
            throw AccountError(.invalidEmailAddress, "'\(text)' is not an e-mail address")
        }
        return email
    }

    /// A fresh user record name: `_` and 128 random bits as hex.
    static func newUserRecordName() throws -> String {
        "_" + (try SecureRandom.hexToken(byteCount: 16))
    }

    /// Creates an account; the password (if any) is stored as an Argon2id hash.
    ///
    /// - Parameter emailVerifiedAt: When the address was verified (the administrator's accounts and
    ///   those made from a verification link: now); `nil` leaves it unverified.
    func createUser(
        email: String, password: String?, nameComponents: NameComponents, discoverable: Bool, emailVerifiedAt: Int64?
    ) async throws -> UserAccount {
        let email = try Self.normalizedEmail(email)
        if let password { try checkPasswordLength(password) }
        let hash = try await password.asyncMap { try await hasher.hash($0) }
        let user = UserAccount(
            userRecordName: try Self.newUserRecordName(), emailAddress: email, nameComponents: nameComponents,
            isDiscoverable: discoverable, passwordHash: hash, createdAt: now(), emailVerifiedAt: emailVerifiedAt
        )
        guard try await accounts.writeAccounts({ try $0.insertUser(user) }) else {
            throw AccountError(.emailAddressTaken, "an account with the e-mail address \(email) already exists")
        }
        return user
    }

    /// Makes the account a verification link asked for, its address verified; `nil` if a verified
    /// account already has the address.
    ///
    /// An account with the address that was never verified (made before verification existed)
    /// is handed to the owner of the address, who just proved it: it gets the new password, and
    /// its sessions are signed out.
    func createVerifiedUser(_ ticket: SignUpTicketCodec.Ticket, password: String) async throws -> UserAccount? {
        let hash = try await hasher.hash(password)
        let now = now()
        let fresh = UserAccount(
            userRecordName: try Self.newUserRecordName(), emailAddress: ticket.email, nameComponents: ticket.nameComponents,
            isDiscoverable: ticket.discoverable, passwordHash: hash, createdAt: now, emailVerifiedAt: now
        )
        let (user, claimed) = try await accounts.writeAccounts { tx -> (UserAccount?, Bool) in
            guard var existing = try tx.user(emailAddress: ticket.email) else {
                return (try tx.insertUser(fresh) ? fresh : nil, false)
            }
            guard existing.emailVerifiedAt == nil else { return (nil, false) }
            existing.passwordHash = hash
            existing.emailVerifiedAt = now
            if ticket.nameComponents != NameComponents() { existing.nameComponents = ticket.nameComponents }
            existing.isDiscoverable = ticket.discoverable
            try tx.updateUser(existing)
            try tx.revokeSessions(ofUser: existing.userRecordName, at: now)
            return (existing, true)
        }
        if claimed, let user {
            logger.notice("the owner of \(user.emailAddress) verified it and took over account \(user.userRecordName), which predates verification")
        }
        return user
    }

    /// Refuses a password shorter than the configured minimum.
    func checkPasswordLength(_ password: String) throws(AccountError) {
        guard password.count >= configuration.minimumPasswordLength else {
            throw AccountError(.passwordTooShort, "a password needs at least \(configuration.minimumPasswordLength) characters")
        }
    }

    /// Checks an e-mail address and password, within the sign-in limits.
    ///
    /// - Parameter address: The client's address (``HTTPRequest/remoteAddress``): failures slow down
    ///   this account only for this address (``SignInThrottle``).
    /// - Throws: ``AccountError`` ``AccountError/Code/invalidCredentials`` (whether the address or the
    ///   password is wrong) or ``AccountError/Code/throttled``.
    func signIn(email text: String, password: String, address: String) async throws -> UserAccount {
        let email = (try? Self.normalizedEmail(text)) ?? text.lowercased()
        if let wait = throttle.admit(account: email, address: address, now: now()) {
            logger.notice("sign-in throttled for \(email) from \(address)")
            throw AccountError(.throttled, "too many sign-in attempts; try again in \(wait) s", retryAfter: wait)
        }
        let user = try await accounts.readAccounts { try $0.user(emailAddress: email) }
        let matches: Bool
        if let hash = user?.passwordHash {
            matches = try await hasher.verify(password, against: hash)
        } else {
            // Spend the same time on unknown addresses so they cannot be told from wrong passwords.
            _ = try await hasher.verify(password, against: try await decoy())
            matches = false
        }
        guard let user, matches else {
            logger.notice("sign-in failed for \(email) from \(address)")
            throw AccountError(.invalidCredentials, "the e-mail address or the password is wrong")
        }
        // Told only to whoever knows the password: the account exists, and an administrator turned it off.
        guard !user.isDisabled else {
            logger.notice("sign-in refused for \(email) from \(address): the account is disabled")
            throw AccountError(.accountDisabled, "the account \(email) is disabled; ask the server's administrator")
        }
        throttle.recordSuccess(account: email, address: address)
        if try hasher.needsRehash(user.passwordHash ?? "") {
            var upgraded = user
            upgraded.passwordHash = try await hasher.hash(password)
            let rehashed = upgraded
            try await accounts.writeAccounts { try $0.updateUser(rehashed) }
        }
        return user
    }

    private func decoy() async throws -> String {
        if let hash = decoyHash.withLock({ $0 }) { return hash }
        let hash = try await hasher.hash(try SecureRandom.hexToken())
        decoyHash.withLock { $0 = hash }
        return hash
    }

    /// Opens a session for `user` in `container` and returns its first web auth token.
    func openSession(for user: UserAccount, container: String, keepSignedIn: Bool) async throws -> String {
        let now = now()
        let session = WebAuthSession(
            sessionID: try SecureRandom.hexToken(byteCount: 16), userRecordName: user.userRecordName, container: container,
            keepSignedIn: keepSignedIn, createdAt: now, newestTokenUsedAt: now
        )
        // Checked in the transaction that opens the session, so an account disabled meanwhile gets none.
        let opened = try await accounts.writeAccounts { tx -> Bool in
            guard let current = try tx.user(recordName: user.userRecordName), !current.isDisabled else { return false }
            try tx.insertSession(session)
            return true
        }
        guard opened else { throw Self.disabled(user.userRecordName) }
        return try tokens.seal(sessionID: session.sessionID, issuedAt: now)
    }

    /// The refusal of a disabled (or removed) account's session: 403 `ACCESS_DENIED`, naming the reason.
    static func disabled(_ userRecordName: String) -> ServiceError {
        ServiceError(.accessDenied, "the account \(userRecordName) is disabled; ask the server's administrator")
    }

    /// Signs out the session a web auth token names; `false` if the token is not one of ours.
    func signOut(webAuthToken: String) async throws -> Bool {
        guard let contents = tokens.open(webAuthToken) else { return false }
        let now = now()
        try await accounts.writeAccounts { try $0.revokeSession(id: contents.sessionID, at: now) }
        return true
    }
}

extension Optional {
    /// `map` with an async transform.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let value = self else { return nil }
        return try await transform(value)
    }
}
