/// Disabling accounts and their sessions, one by one (the console's Users page; Documentation/0022-console.md).
extension AccountAdministration {
    /// The user with this e-mail address or user record name, read inside a store transaction.
    static func user(matching text: String, in tx: any AccountStoreReader) throws -> UserAccount? {
        let email = try? Authenticator.normalizedEmail(text)
        return try email.flatMap { try tx.user(emailAddress: $0) } ?? tx.user(recordName: text)
    }

    static func noUser(_ text: String) -> AccountError {
        AccountError(.notFound, "no user has the e-mail address or record name '\(text)'")
    }

    /// Disables an account, or enables it again.
    ///
    /// A disabled account cannot sign in (``AccountError/Code/accountDisabled`` once its password
    /// matched) and no session opens for it; the tokens of its sessions are refused with 403
    /// `ACCESS_DENIED` naming the reason. Disabling also signs every session out, in the same
    /// transaction, so enabling the account again does not bring them back: its owner signs in anew.
    ///
    /// ```swift
    /// let ada = try await admin.setDisabled(true, forUserMatching: "ada@example.com")
    /// ```
    ///
    /// - Parameters:
    ///   - disabled: `true` to disable, `false` to enable.
    ///   - text: An e-mail address or user record name.
    /// - Returns: The account as it is now.
    /// - Throws: ``AccountError`` ``AccountError/Code/notFound``.
    public func setDisabled(_ disabled: Bool, forUserMatching text: String) async throws -> UserAccount {
        let now = authenticator.now()
        let updated = try await authenticator.accounts.writeAccounts { tx -> UserAccount? in
            guard var user = try Self.user(matching: text, in: tx) else { return nil }
            // An account disabled already keeps the time it was disabled.
            user.disabledAt = disabled ? (user.disabledAt ?? now) : nil
            _ = try tx.setUserDisabled(recordName: user.userRecordName, at: user.disabledAt)
            if disabled { try tx.revokeSessions(ofUser: user.userRecordName, at: now) }
            return user
        }
        guard let updated else { throw Self.noUser(text) }
        return updated
    }

    /// A user's sessions, live or not, newest first.
    ///
    /// - Parameter text: An e-mail address or user record name.
    /// - Returns: The user and the sessions.
    /// - Throws: ``AccountError`` ``AccountError/Code/notFound``.
    public func sessions(ofUserMatching text: String) async throws -> (user: UserAccount, sessions: [WebAuthSession]) {
        let found = try await authenticator.accounts.readAccounts { tx -> (UserAccount, [WebAuthSession])? in
            guard let user = try Self.user(matching: text, in: tx) else { return nil }
            return (user, try tx.sessions(ofUser: user.userRecordName))
        }
        guard let found else { throw Self.noUser(text) }
        return found
    }

    /// Signs out one session of a user; its tokens stop working at once.
    ///
    /// - Parameters:
    ///   - sessionID: The session's ID.
    ///   - text: The user's e-mail address or record name: the session must be theirs.
    /// - Returns: The user and the session as it is now.
    /// - Throws: ``AccountError`` ``AccountError/Code/notFound`` for an unknown user, or a session
    ///   that is not the user's or was signed out already.
    public func endSession(_ sessionID: String, ofUserMatching text: String) async throws -> (user: UserAccount, session: WebAuthSession) {
        let now = authenticator.now()
        let ended = try await authenticator.accounts.writeAccounts { tx -> (UserAccount, WebAuthSession?)? in
            guard let user = try Self.user(matching: text, in: tx) else { return nil }
            guard var session = try tx.session(id: sessionID), session.userRecordName == user.userRecordName, session.revokedAt == nil else {
                return (user, nil)
            }
            try tx.revokeSession(id: sessionID, at: now)
            session.revokedAt = now
            return (user, session)
        }
        guard let ended else { throw Self.noUser(text) }
        guard let session = ended.1 else {
            throw AccountError(.notFound, "user \(ended.0.emailAddress) has no live session '\(sessionID)'")
        }
        return (ended.0, session)
    }
}
