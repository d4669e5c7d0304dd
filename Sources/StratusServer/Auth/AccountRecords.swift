public import StratusWire

/// A person who can sign in: a user record name, an e-mail address, names and a password hash.
///
/// The user record name (`_` + 32 hex) is the owner of the user's private
/// databases and the `created.userRecordName` of what the user writes.
public struct UserAccount: Hashable, Sendable {
    /// `_` followed by 32 lowercase hex characters (128 random bits).
    public var userRecordName: String
    /// The sign-in e-mail address, trimmed and lowercased; unique.
    public var emailAddress: String
    /// The user's names; revealed to others only when ``isDiscoverable``.
    public var nameComponents: NameComponents
    /// Whether other users may find this user by e-mail or record name and see the names.
    public var isDiscoverable: Bool
    /// The Argon2id PHC string of the password; `nil` for accounts that cannot sign in with a password.
    public var passwordHash: String?
    /// When the account was created, in milliseconds since 1970.
    public var createdAt: Int64
    /// When the owner of ``emailAddress`` proved it (followed a verification link), or the account was
    /// made by the administrator; `nil` for an address never verified (accounts from before
    /// verification existed).
    ///
    /// Only a verified address is matched to share invitations sent to it and found by
    /// `users/lookup/email`.
    public var emailVerifiedAt: Int64?

    /// When an administrator disabled the account (it cannot sign in and its sessions stop
    /// working), or `nil` while it is enabled.
    public var disabledAt: Int64?

    /// Whether ``emailAddress`` is verified.
    public var isEmailVerified: Bool { emailVerifiedAt != nil }

    /// Whether an administrator disabled the account.
    public var isDisabled: Bool { disabledAt != nil }

    /// Creates an account value.
    public init(
        userRecordName: String, emailAddress: String, nameComponents: NameComponents = NameComponents(),
        isDiscoverable: Bool = false, passwordHash: String? = nil, createdAt: Int64, emailVerifiedAt: Int64? = nil, disabledAt: Int64? = nil
    ) {
        self.userRecordName = userRecordName
        self.emailAddress = emailAddress
        self.nameComponents = nameComponents
        self.isDiscoverable = isDiscoverable
        self.passwordHash = passwordHash
        self.createdAt = createdAt
        self.emailVerifiedAt = emailVerifiedAt
        self.disabledAt = disabledAt
    }
}

/// One signed-in session: the state behind a chain of rotating web auth tokens.
///
/// The tokens themselves are never stored: each is sealed with the server's
/// secret and names its session and issue time (see ``WebAuthTokenCodec``).
public struct WebAuthSession: Hashable, Sendable {
    /// 32 lowercase hex characters.
    public var sessionID: String
    /// Who signed in.
    public var userRecordName: String
    /// The container the session was opened for; its tokens work only there.
    public var container: String
    /// "Keep me signed in": tokens live two weeks instead of 30 minutes, and the session 30 days instead of 24 hours.
    public var keepSignedIn: Bool
    /// When the session began, in milliseconds since 1970.
    public var createdAt: Int64
    /// The issue time of the newest token a client has presented; older tokens are accepted only
    /// within the grace window before it.
    public var newestTokenUsedAt: Int64
    /// When the session was signed out, if it was.
    public var revokedAt: Int64?
    /// When the account of ``userRecordName`` was disabled, read with the session (`nil` while it
    /// is enabled); the session's tokens stop working while it is set.
    public var accountDisabledAt: Int64?

    /// Creates a session value.
    public init(
        sessionID: String, userRecordName: String, container: String, keepSignedIn: Bool, createdAt: Int64,
        newestTokenUsedAt: Int64, revokedAt: Int64? = nil, accountDisabledAt: Int64? = nil
    ) {
        self.sessionID = sessionID
        self.userRecordName = userRecordName
        self.container = container
        self.keepSignedIn = keepSignedIn
        self.createdAt = createdAt
        self.newestTokenUsedAt = newestTokenUsedAt
        self.revokedAt = revokedAt
        self.accountDisabledAt = accountDisabledAt
    }
}

/// An API token of one container environment (`ckAPIToken`), stored as the SHA-256 of the token.
public struct APITokenRecord: Hashable, Sendable {
    /// Lowercase hex SHA-256 of the token; the token itself is shown once, when it is created.
    public var tokenHash: String
    /// The token's first 8 characters, to tell tokens apart in listings.
    public var prefix: String
    /// The container identifier.
    public var container: String
    /// The environment the token opens.
    public var environment: Environment
    /// A name for people.
    public var name: String
    /// Where the sign-in page sends the browser with `?ckWebAuthToken=…`; without one it posts a message to its opener.
    public var signInCallbackURL: String?
    /// Browser origins allowed to call with this token (CORS); empty allows any.
    public var allowedOrigins: [String]
    /// When it was created, in milliseconds since 1970.
    public var createdAt: Int64
    /// When it was revoked, if it was.
    public var revokedAt: Int64?

    /// Creates a token value.
    public init(
        tokenHash: String, prefix: String, container: String, environment: Environment, name: String,
        signInCallbackURL: String? = nil, allowedOrigins: [String] = [], createdAt: Int64, revokedAt: Int64? = nil
    ) {
        self.tokenHash = tokenHash
        self.prefix = prefix
        self.container = container
        self.environment = environment
        self.name = name
        self.signInCallbackURL = signInCallbackURL
        self.allowedOrigins = allowedOrigins
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}

/// A registered server-to-server public key of one container environment.
public struct ServerKeyRecord: Hashable, Sendable {
    /// The key ID the server issued: 64 lowercase hex characters.
    public var keyID: String
    /// The container identifier.
    public var container: String
    /// The environment the key may sign for.
    public var environment: Environment
    /// A name for people.
    public var name: String
    /// The P-256 public key, PEM (SubjectPublicKeyInfo).
    public var publicKeyPEM: String
    /// When it was registered, in milliseconds since 1970.
    public var createdAt: Int64
    /// When it was revoked, if it was.
    public var revokedAt: Int64?

    /// Creates a key value.
    public init(
        keyID: String, container: String, environment: Environment, name: String, publicKeyPEM: String, createdAt: Int64,
        revokedAt: Int64? = nil
    ) {
        self.keyID = keyID
        self.container = container
        self.environment = environment
        self.name = name
        self.publicKeyPEM = publicKeyPEM
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }
}
