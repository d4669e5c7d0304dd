public import StratusLogging
public import StratusWire
import Foundation
import StratusCrypto

/// What the administrator does with accounts, API tokens and server-to-server keys
/// (the logic behind `stratus user|token|key`, and the test harness's helpers).
///
/// ```swift
/// let admin = AccountAdministration(accounts: accounts, configuration: configuration)
/// let ada = try await admin.createUser(email: "ada@example.com", password: "correct horse")
/// let (apiToken, _) = try await admin.createAPIToken(container: "iCloud.com.example.Notes", environment: .development, name: "web")
/// let webAuthToken = try await admin.webAuthToken(for: ada.emailAddress, container: "iCloud.com.example.Notes")
/// ```
public struct AccountAdministration: Sendable {
    let authenticator: Authenticator

    /// Creates the administration over an account store.
    ///
    /// - Parameters:
    ///   - accounts: Where accounts live.
    ///   - configuration: The server's configuration: its token secret seals web auth tokens, so use the
    ///     same secret as the server that will accept them.
    ///   - logger: Where refusals are logged.
    public init(accounts: any AccountStore, configuration: ServiceConfiguration, logger: Logger = .disabled) {
        authenticator = Authenticator(accounts: accounts, configuration: configuration, logger: logger)
    }

    // MARK: Users

    /// Creates a user, with its e-mail address counted as verified (the administrator vouches for it).
    ///
    /// - Parameters:
    ///   - email: The sign-in address; stored lowercased, unique.
    ///   - password: The password, stored as an Argon2id hash; `nil` for an account that signs in
    ///     only with tokens from ``webAuthToken(for:container:keepSignedIn:)``.
    ///   - nameComponents: The user's names.
    ///   - discoverable: Whether others may look the user up and see the names.
    /// - Returns: The new account, with a fresh user record name.
    /// - Throws: ``AccountError`` for a bad address, a short password or a taken address.
    public func createUser(
        email: String, password: String?, nameComponents: NameComponents = NameComponents(), discoverable: Bool = false
    ) async throws -> UserAccount {
        try await authenticator.createUser(
            email: email, password: password, nameComponents: nameComponents, discoverable: discoverable, emailVerifiedAt: authenticator.now()
        )
    }

    /// Marks a user's e-mail address as verified (for accounts made before verification existed,
    /// whose owner the administrator knows), so share invitations to it reach the account.
    ///
    /// - Parameter user: An e-mail address or user record name.
    /// - Returns: The account, verified.
    /// - Throws: ``AccountError`` ``AccountError/Code/notFound``.
    public func markEmailVerified(_ user: String) async throws -> UserAccount {
        var account = try await self.user(matching: user)
        guard account.emailVerifiedAt == nil else { return account }
        account.emailVerifiedAt = authenticator.now()
        let verified = account
        try await authenticator.accounts.writeAccounts { try $0.updateUser(verified) }
        return verified
    }

    /// Every user, by e-mail address.
    public func users() async throws -> [UserAccount] {
        try await authenticator.accounts.readAccounts { try $0.users() }
    }

    /// The user with this e-mail address or user record name.
    ///
    /// - Throws: ``AccountError`` ``AccountError/Code/notFound``.
    public func user(matching text: String) async throws -> UserAccount {
        let found = try await authenticator.accounts.readAccounts { tx in try Self.user(matching: text, in: tx) }
        guard let found else { throw Self.noUser(text) }
        return found
    }

    /// Makes the user with this e-mail address or user record name discoverable or not.
    ///
    /// The row is read and written in one transaction, so a password change or an address
    /// verification committed meanwhile is never written back over.
    ///
    /// - Throws: ``AccountError`` ``AccountError/Code/notFound``.
    public func setDiscoverable(_ discoverable: Bool, forUserMatching text: String) async throws -> UserAccount {
        let updated = try await authenticator.accounts.writeAccounts { tx -> UserAccount? in
            guard var user = try Self.user(matching: text, in: tx) else { return nil }
            user.isDiscoverable = discoverable
            try tx.updateUser(user)
            return user
        }
        guard let updated else { throw Self.noUser(text) }
        return updated
    }

    /// Opens a session for a user and returns its web auth token, for scripts and tests.
    ///
    /// - Parameters:
    ///   - user: An e-mail address or user record name.
    ///   - container: The container the token works in.
    ///   - keepSignedIn: Two-week tokens (the default) rather than 30-minute ones.
    /// - Returns: The `ckWebAuthToken`.
    public func webAuthToken(for user: String, container: String, keepSignedIn: Bool = true) async throws -> String {
        try await authenticator.openSession(for: try await self.user(matching: user), container: container, keepSignedIn: keepSignedIn)
    }

    /// Signs out the session of a web auth token; its tokens stop working at once.
    ///
    /// - Throws: ``AccountError`` ``AccountError/Code/notFound`` if the token was not issued with this secret.
    public func signOut(webAuthToken: String) async throws {
        guard try await authenticator.signOut(webAuthToken: webAuthToken) else {
            throw AccountError(.notFound, "the web auth token was not issued by this server")
        }
    }

    // MARK: API tokens

    /// Creates an API token: 64 lowercase hex characters (256 random bits), shown only now.
    ///
    /// - Parameters:
    ///   - container: The container identifier.
    ///   - environment: The environment it opens.
    ///   - name: A name for people.
    ///   - signInCallbackURL: Where sign-in sends the browser with `?ckWebAuthToken=…` (http or https).
    ///   - allowedOrigins: Browser origins such as `https://app.example.com`.
    /// - Returns: The token and what is stored of it.
    /// - Throws: ``AccountError`` ``AccountError/Code/invalidArgument`` for a bad URL or origin.
    public func createAPIToken(
        container: String, environment: Environment, name: String, signInCallbackURL: String? = nil, allowedOrigins: [String] = []
    ) async throws -> (token: String, record: APITokenRecord) {
        if let signInCallbackURL {
            guard let url = URL(string: signInCallbackURL), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
                throw AccountError(.invalidArgument, "sign-in callback '\(signInCallbackURL)' is not an http or https URL")
            }
        }
        for origin in allowedOrigins {
            guard let url = URL(string: origin), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil,
                url.path.isEmpty || url.path == "/", url.query == nil
            else {
                throw AccountError(.invalidArgument, "allowed origin '\(origin)' is not a scheme and host such as https://app.example.com")
            }
        }
        let token = try SecureRandom.hexToken()
        let record = APITokenRecord(
            tokenHash: Authenticator.hash(token), prefix: String(token.prefix(8)), container: container, environment: environment,
            name: name, signInCallbackURL: signInCallbackURL, allowedOrigins: allowedOrigins, createdAt: authenticator.now()
        )
        try await authenticator.accounts.writeAccounts { try $0.insertAPIToken(record) }
        return (token, record)
    }

    /// The API tokens of a container, or of every container.
    public func apiTokens(container: String?) async throws -> [APITokenRecord] {
        try await authenticator.accounts.readAccounts { try $0.apiTokens(container: container) }
    }

    /// Revokes an API token, named by the whole token or by the 8-character prefix listings show.
    ///
    /// - Returns: The revoked token.
    /// - Throws: ``AccountError`` ``AccountError/Code/notFound`` or ``AccountError/Code/ambiguous``.
    public func revokeAPIToken(_ tokenOrPrefix: String, container: String? = nil) async throws -> APITokenRecord {
        let now = authenticator.now()
        let hash = Authenticator.hash(tokenOrPrefix)
        let revoked = try await authenticator.accounts.writeAccounts { tx in
            let candidates =
                try tx.apiToken(hash: hash).map { [$0] }
                ?? tx.apiTokens(container: container).filter { $0.prefix == tokenOrPrefix && $0.revokedAt == nil }
            guard var token = candidates.first else {
                throw AccountError(.notFound, "no live API token is '\(tokenOrPrefix)' or starts with it")
            }
            guard candidates.count == 1 else {
                throw AccountError(.ambiguous, "\(candidates.count) API tokens start with '\(tokenOrPrefix)'; give the whole token")
            }
            guard try tx.revokeAPIToken(hash: token.tokenHash, at: now) else {
                throw AccountError(.notFound, "API token \(token.prefix)… is already revoked")
            }
            token.revokedAt = now
            return token
        }
        CredentialRevision.noteRevocation()
        return revoked
    }

    // MARK: Server-to-server keys

    /// Registers a P-256 public key and issues its key ID (64 lowercase hex characters).
    ///
    /// - Parameters:
    ///   - container: The container identifier.
    ///   - environment: The environment requests signed with it may address.
    ///   - name: A name for people.
    ///   - publicKeyPEM: The public key, PEM (`openssl ec -in eckey.pem -pubout`).
    /// - Returns: The registered key.
    /// - Throws: ``AccountError`` ``AccountError/Code/invalidArgument`` if the PEM is not a P-256 public key.
    public func addServerKey(container: String, environment: Environment, name: String, publicKeyPEM: String) async throws -> ServerKeyRecord {
        let key: P256PublicKey
        do {
            key = try P256PublicKey(pemRepresentation: publicKeyPEM)
        } catch {
            throw AccountError(.invalidArgument, "not a P-256 public key in PEM form: \(error)")
        }
        let record = ServerKeyRecord(
            keyID: try SecureRandom.hexToken(), container: container, environment: environment, name: name,
            publicKeyPEM: key.pemRepresentation, createdAt: authenticator.now()
        )
        try await authenticator.accounts.writeAccounts { try $0.insertServerKey(record) }
        return record
    }

    /// The server-to-server keys of a container, or of every container.
    public func serverKeys(container: String?) async throws -> [ServerKeyRecord] {
        try await authenticator.accounts.readAccounts { try $0.serverKeys(container: container) }
    }

    /// Revokes a server-to-server key; requests signed with it fail from the next one on.
    ///
    /// - Throws: ``AccountError`` ``AccountError/Code/notFound``.
    public func revokeServerKey(_ keyID: String) async throws -> ServerKeyRecord {
        let now = authenticator.now()
        let revoked = try await authenticator.accounts.writeAccounts { tx in
            guard var key = try tx.serverKey(id: keyID), try tx.revokeServerKey(id: keyID, at: now) else {
                throw AccountError(.notFound, "no live server-to-server key has the ID '\(keyID)'")
            }
            key.revokedAt = now
            return key
        }
        CredentialRevision.noteRevocation()
        return revoked
    }

    /// The user record name that records written with a server-to-server key carry.
    public static func userRecordName(ofServerKey keyID: String) -> String {
        Authenticator.userRecordName(ofKey: keyID)
    }
}
