/// Where accounts, sessions, API tokens and server-to-server keys live.
///
/// Like ``RecordStore``, a back end provides small synchronous primitives run
/// inside its transactions; every rule (who may sign in, token rotation,
/// uniqueness of e-mail addresses) lives once, in `StratusServer`. Secrets are
/// never stored: passwords as Argon2id hashes, API tokens as SHA-256 hashes, and
/// web auth tokens not at all (they are sealed, see ``WebAuthTokenCodec``).
///
/// ```swift
/// let user = try await accounts.readAccounts { try $0.user(emailAddress: "ada@example.com") }
/// ```
public protocol AccountStore: Sendable {
    /// Runs `body` in a read-only snapshot.
    func readAccounts<T: Sendable>(_ body: @escaping @Sendable (any AccountStoreReader) throws -> T) async throws -> T

    /// Runs `body` in one serializable transaction that commits if `body` returns and rolls back if it throws.
    func writeAccounts<T: Sendable>(_ body: @escaping @Sendable (any AccountStoreWriter) throws -> T) async throws -> T

    /// A number that changes whenever a server-to-server key or an API token is added, changed,
    /// revoked or deleted, by this process or any other; `nil` when the store cannot read one cheaply.
    ///
    /// Read synchronously on the request path, so it must take microseconds and never wait
    /// long; the authenticator reuses key and token records read while it held the same value.
    ///
    /// ```swift
    /// let before = try accounts.credentialGeneration()
    /// ```
    func credentialGeneration() throws -> Int64?

    /// Runs `body` in a read-only snapshot on the caller's thread if the store can start one at
    /// once, without waiting for a connection; `nil` when it cannot, and the caller uses
    /// ``readAccounts(_:)``.
    ///
    /// For the few indexed reads every request with a web auth token needs (its API token and
    /// session, which must be current: a sign-out applies to the next request): microseconds of
    /// work, which a hop to a reader connection and back would cost several times over.
    ///
    /// ```swift
    /// let user = try accounts.readAccountsInPlace { try $0.user(emailAddress: "ada@example.com") }
    /// ```
    func readAccountsInPlace<T: Sendable>(_ body: @Sendable (any AccountStoreReader) throws -> T) throws -> T?
}

extension AccountStore {
    /// No cheap change stamp: the authenticator reads key and token records on every request.
    public func credentialGeneration() throws -> Int64? { nil }

    /// No read on the caller's thread: every read goes through ``readAccounts(_:)``.
    public func readAccountsInPlace<T: Sendable>(_ body: @Sendable (any AccountStoreReader) throws -> T) throws -> T? { nil }
}

/// Read primitives, valid only inside ``AccountStore/readAccounts(_:)`` or ``AccountStore/writeAccounts(_:)``.
public protocol AccountStoreReader {
    /// The account with this user record name.
    func user(recordName: String) throws -> UserAccount?

    /// The account with this (normalized) e-mail address.
    func user(emailAddress: String) throws -> UserAccount?

    /// Every account, by e-mail address.
    func users() throws -> [UserAccount]

    /// The session with this ID, revoked or not, with its account's ``WebAuthSession/accountDisabledAt``.
    func session(id: String) throws -> WebAuthSession?

    /// The sessions of a user, revoked or not, newest first.
    func sessions(ofUser userRecordName: String) throws -> [WebAuthSession]

    /// The API token whose SHA-256 is `hash`, revoked or not.
    func apiToken(hash: String) throws -> APITokenRecord?

    /// The API tokens of a container (of every container when `nil`), newest first.
    func apiTokens(container: String?) throws -> [APITokenRecord]

    /// The server-to-server key with this ID, revoked or not.
    func serverKey(id: String) throws -> ServerKeyRecord?

    /// The server-to-server keys of a container (of every container when `nil`), newest first.
    func serverKeys(container: String?) throws -> [ServerKeyRecord]
}

/// Write primitives, valid only inside ``AccountStore/writeAccounts(_:)``.
public protocol AccountStoreWriter: AccountStoreReader {
    /// Inserts an account; `false` (and nothing written) if its record name or e-mail address is taken.
    func insertUser(_ user: UserAccount) throws -> Bool

    /// Replaces the names, discoverability, password hash and e-mail verification time of an existing account
    /// (never ``UserAccount/disabledAt``: only ``setUserDisabled(recordName:at:)`` changes that).
    func updateUser(_ user: UserAccount) throws

    /// Disables an account as of `time`, or enables it again when `time` is `nil`; `false` if there is no such account.
    func setUserDisabled(recordName: String, at time: Int64?) throws -> Bool

    /// Inserts a session.
    func insertSession(_ session: WebAuthSession) throws

    /// Raises the session's newest-token-used time to `issuedAt` if it is later.
    func noteTokenUse(sessionID: String, issuedAt: Int64) throws

    /// Signs a session out; its tokens stop working at once.
    func revokeSession(id: String, at time: Int64) throws

    /// Signs out every session of a user.
    func revokeSessions(ofUser userRecordName: String, at time: Int64) throws

    /// Inserts an API token.
    func insertAPIToken(_ token: APITokenRecord) throws

    /// Revokes an API token; `false` if there is no live token with this hash.
    func revokeAPIToken(hash: String, at time: Int64) throws -> Bool

    /// Inserts a server-to-server key.
    func insertServerKey(_ key: ServerKeyRecord) throws

    /// Revokes a key; `false` if there is no live key with this ID.
    func revokeServerKey(id: String, at time: Int64) throws -> Bool
}
