/// Where the web console keeps its administrators, their sessions and the audit log
/// (Documentation/0022-console.md).
///
/// Console administrators are not app users: they sign in to `/console` only, and no CloudKit
/// credential opens the console. Like ``AccountStore``, a back end provides small synchronous
/// primitives run inside its transactions; the rules (passwords, throttling, CSRF, what is
/// audited) live once, in `StratusConsole`. Secrets are never stored: passwords as Argon2id
/// hashes, session tokens as SHA-256 hashes.
///
/// ```swift
/// let admins = try await console.readConsole { try $0.administrators() }
/// ```
public protocol ConsoleStore: Sendable {
    /// Runs `body` in a read-only snapshot.
    func readConsole<T: Sendable>(_ body: @escaping @Sendable (any ConsoleStoreReader) throws -> T) async throws -> T

    /// Runs `body` in one transaction that commits if `body` returns and rolls back if it throws;
    /// on PostgreSQL it may run again after a serialization failure, so it must have no other effect.
    func writeConsole<T: Sendable>(_ body: @escaping @Sendable (any ConsoleStoreWriter) throws -> T) async throws -> T
}

/// Read primitives, valid only inside ``ConsoleStore/readConsole(_:)`` or ``ConsoleStore/writeConsole(_:)``.
public protocol ConsoleStoreReader {
    /// The administrator with this (lowercased) e-mail address.
    func administrator(emailAddress: String) throws -> ConsoleAdministrator?

    /// The administrator with this ID.
    func administrator(id: String) throws -> ConsoleAdministrator?

    /// Every administrator, by e-mail address.
    func administrators() throws -> [ConsoleAdministrator]

    /// The session whose token has this SHA-256 (hex), revoked or not.
    func consoleSession(tokenHash: String) throws -> ConsoleSession?

    /// The newest audit entries, newest first: at most `limit`, with sequence numbers below `before` when given.
    func auditEntries(limit: Int, before: Int64?) throws -> [ConsoleAuditEntry]
}

/// Write primitives, valid only inside ``ConsoleStore/writeConsole(_:)``.
public protocol ConsoleStoreWriter: ConsoleStoreReader {
    /// Inserts an administrator; `false` (nothing written) if the ID or e-mail address is taken.
    func insertAdministrator(_ administrator: ConsoleAdministrator) throws -> Bool

    /// Deletes an administrator and every session of theirs; `false` if there was none with this ID.
    func deleteAdministrator(id: String) throws -> Bool

    /// Inserts a session.
    func insertConsoleSession(_ session: ConsoleSession) throws

    /// Signs a session out; `false` if no live session has this token hash.
    func revokeConsoleSession(tokenHash: String, at time: Int64) throws -> Bool

    /// Deletes the sessions that expired at or before `time`, signed out or not; returns how many.
    func deleteExpiredConsoleSessions(at time: Int64) throws -> Int

    /// Appends an entry to the audit log and returns its sequence number (ignoring the entry's own).
    func appendAudit(_ entry: ConsoleAuditEntry) throws -> Int64

    /// Records how the change of a ``ConsoleAuditEntry/Outcome/started`` entry ended, with its
    /// final target and detail; `false` if no entry has this sequence number or it is no longer
    /// `started` (an entry is concluded once).
    func concludeAudit(sequence: Int64, outcome: ConsoleAuditEntry.Outcome, target: String, detail: String) throws -> Bool
}

/// A person who may sign in to the console.
public struct ConsoleAdministrator: Sendable, Hashable, Codable {
    /// A random identifier.
    public var id: String
    /// The sign-in address, lowercased.
    public var emailAddress: String
    /// The Argon2id hash of the password (a PHC string).
    public var passwordHash: String
    /// When the administrator was made, in milliseconds since 1970.
    public var createdAt: Int64

    /// Creates an administrator value.
    public init(id: String, emailAddress: String, passwordHash: String, createdAt: Int64) {
        self.id = id
        self.emailAddress = emailAddress
        self.passwordHash = passwordHash
        self.createdAt = createdAt
    }
}

/// A signed-in console session: the cookie's token is kept only as its SHA-256.
public struct ConsoleSession: Sendable, Hashable {
    /// The SHA-256 (hex) of the cookie's token.
    public var tokenHash: String
    /// The administrator signed in.
    public var administratorID: String
    /// The anti-forgery token every state-changing request of this session must carry.
    public var csrfToken: String
    /// When the session began, in milliseconds since 1970.
    public var createdAt: Int64
    /// When the session stops working, in milliseconds since 1970.
    public var expiresAt: Int64
    /// When it was signed out, if it was.
    public var revokedAt: Int64?

    /// Creates a session value.
    public init(tokenHash: String, administratorID: String, csrfToken: String, createdAt: Int64, expiresAt: Int64, revokedAt: Int64? = nil) {
        self.tokenHash = tokenHash
        self.administratorID = administratorID
        self.csrfToken = csrfToken
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }
}

/// One change made through the console: who, what, when, and how it ended.
///
/// A change is logged *before* it is made, as ``Outcome-swift.enum/started``, and concluded
/// after: so a change is never made without an entry, and an entry still `started` says the
/// server stopped (or could not write the conclusion) while the change may or may not have
/// been made.
public struct ConsoleAuditEntry: Sendable, Hashable, Codable {
    /// How the change of an entry ended.
    public enum Outcome: String, Sendable, Hashable, Codable {
        /// Logged, and the change was about to be made; not concluded (yet).
        case started
        /// The change was made.
        case done
        /// The change was refused or failed; the detail says why.
        case failed
    }

    /// The log's order; assigned by the store.
    public var sequence: Int64
    /// When, in milliseconds since 1970.
    public var at: Int64
    /// The administrator's e-mail address (kept even after the administrator is removed).
    public var administrator: String
    /// What was done, such as `records.modify` or `tokens.revoke`.
    public var action: String
    /// What it was done to, such as `iCloud.com.example.Notes/development/private/Notes`.
    public var target: String
    /// A short description (record names, a token's prefix); never a secret.
    public var detail: String
    /// How the change ended.
    public var outcome: Outcome

    /// Creates an entry.
    public init(
        sequence: Int64 = 0, at: Int64, administrator: String, action: String, target: String, detail: String, outcome: Outcome = .done
    ) {
        self.sequence = sequence
        self.at = at
        self.administrator = administrator
        self.action = action
        self.target = target
        self.detail = detail
        self.outcome = outcome
    }
}
