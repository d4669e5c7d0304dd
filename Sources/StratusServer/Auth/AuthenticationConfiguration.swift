public import Foundation
public import StratusCrypto

/// How a ``CloudKitService`` authenticates requests (protocol.md §10).
///
/// By default the service runs in **open mode**: no credentials are checked and
/// every request acts as ``ServiceConfiguration/openModeUserRecordName``, which is
/// only fit for development on loopback. Set ``requiresAuthentication`` (and give
/// the service an ``AccountStore``) to require API tokens, web auth tokens and
/// server-to-server signatures.
///
/// ```swift
/// var configuration = ServiceConfiguration(tokenSecret: secret)
/// configuration.authentication.requiresAuthentication = true
/// configuration.publicBaseURL = "https://cloud.example.com"  // sign-in links use it too
/// ```
public struct AuthenticationConfiguration: Sendable {
    /// Whether credentials are required; `false` is open mode.
    public var requiresAuthentication = false
    /// How long a web auth token lives: 30 minutes.
    public var webAuthTokenLifetime: Duration = .seconds(30 * 60)
    /// How long a web auth token lives with "keep me signed in": two weeks.
    public var keepSignedInLifetime: Duration = .seconds(14 * 24 * 3600)
    /// How much older than the newest token a client has used a previous token may be and still work.
    public var webAuthTokenGracePeriod: Duration = .seconds(5 * 60)
    /// How far a server-to-server request's date may be from the server's clock: 10 minutes.
    public var serverToServerDateTolerance: TimeInterval = ServerToServerSignature.defaultDateTolerance
    /// How many accepted server-to-server signatures each node remembers to refuse their replay
    /// (while their date is within ``serverToServerDateTolerance``): one million by default, about
    /// 40 MB at most, enough for 800 signed requests a second over the 20-minute window. Past it
    /// the oldest are forgotten first; `0` turns replay detection off.
    public var serverToServerReplayCapacity = 1_000_000
    /// How long a server-to-server key record is reused by a store **without** a credential
    /// generation (``AccountStore/credentialGeneration()`` is `nil`, as for PostgreSQL); zero (the
    /// default) reads such a store on every signed request.
    ///
    /// Stores with a generation (SQLite) ignore it: their key records are reused exactly while the
    /// generation is unchanged, so a revocation by any process applies to the next request. Here a
    /// revocation made through this process's ``AccountAdministration`` applies to the next request
    /// regardless; one made by another process (`stratus key revoke`) only after this time.
    public var serverKeyCacheLifetime: Duration = .zero
    /// Argon2id costs and the number of password hashes computed at once.
    public var passwordHashing: PasswordHasher.Configuration = .interactive
    /// Whether the sign-in page offers "create an account"; when `false` only `stratus user create` makes accounts.
    public var allowsSignUp = true
    /// The shortest password accepted when an account is created.
    public var minimumPasswordLength = 8
    /// Sign-in attempt limits per account and per client address.
    public var signInLimits = SignInLimits()

    /// Creates the default configuration (open mode).
    public init() {}
}

/// How many sign-in attempts are allowed before the server answers `429` for a while.
public struct SignInLimits: Sendable, Hashable {
    /// Failed attempts on one account within ``accountWindow`` before it is locked for the rest of the window.
    public var failuresPerAccount = 5
    /// The window for ``failuresPerAccount``.
    public var accountWindow: Duration = .seconds(15 * 60)
    /// Attempts (failed or not) from one address within ``addressWindow``.
    public var attemptsPerAddress = 30
    /// The window for ``attemptsPerAddress``.
    public var addressWindow: Duration = .seconds(60)

    /// Creates the default limits.
    public init() {}
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
