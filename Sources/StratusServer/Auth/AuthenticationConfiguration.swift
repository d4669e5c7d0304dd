public import Foundation
import StratusCrypto
public import StratusServerCrypto

/// How a ``CloudKitService`` authenticates requests (Apple's CloudKit Web Services Reference: “Authentication”).
///
/// By default credentials are **required**: API tokens, web auth tokens and server-to-server
/// signatures, checked against the service's ``AccountStore``. **Open mode** — no credentials,
/// every request acts as ``ServiceConfiguration/openModeUserRecordName`` — is only ever an
/// explicit choice (``openMode``, or ``requiresAuthentication`` set to `false`), fit for
/// development on loopback: such a service answers only requests addressed to a loopback name
/// and lets only loopback browser origins (and ``openModeOrigins``) read its responses.
///
/// ```swift
/// var configuration = ServiceConfiguration(tokenSecret: secret)   // requires credentials
/// configuration.publicBaseURL = "https://cloud.example.com"        // sign-in links use it too
/// configuration.authentication.allowsSignUp = false                // only `stratus user create` makes accounts
///
/// var development = ServiceConfiguration(tokenSecret: secret)
/// development.authentication = .openMode                           // loopback development only
/// ```
public struct AuthenticationConfiguration: Sendable {
    /// Whether credentials are required; `true` by default, `false` is open mode.
    public var requiresAuthentication = true
    /// How long a web auth token lives after it is issued: 30 minutes.
    public var webAuthTokenLifetime: Duration = .seconds(30 * 60)
    /// How long a web auth token lives with "keep me signed in": two weeks.
    public var keepSignedInLifetime: Duration = .seconds(14 * 24 * 3600)
    /// The longest a session lasts from its sign-in, however often its tokens are refreshed: 24 hours.
    ///
    /// A token of an older session is refused with `AUTHENTICATION_REQUIRED` (421, with the
    /// sign-in page as `redirectURL`): the user signs in again.
    public var sessionLifetime: Duration = .seconds(24 * 3600)
    /// The longest a "keep me signed in" session lasts from its sign-in: 30 days.
    public var keepSignedInSessionLifetime: Duration = .seconds(30 * 24 * 3600)
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
    ///
    /// A sign-up never creates an account by itself: it sends a verification link to the address
    /// (``verificationDelivery``), and the account is made — its address verified — when the link
    /// is followed and a password chosen. The answer to a sign-up is the same whether or not the
    /// address already has an account.
    public var allowsSignUp = true
    /// How long a verification link works: 24 hours.
    public var verificationLinkLifetime: Duration = .seconds(24 * 3600)
    /// How verification links reach the people who signed up: the log (at `notice`) by default.
    public var verificationDelivery: VerificationDelivery = .log
    /// The shortest password accepted when an account is created.
    public var minimumPasswordLength = 8
    /// Sign-in attempt limits per account and client address, and per client address.
    public var signInLimits = SignInLimits()
    /// Browser origins besides loopback ones (`http://localhost:*`, `http://127.0.0.1:*`,
    /// `http://[::1]:*`) that may read an open-mode server's responses, such as
    /// `http://devbox.local:3000`. Ignored with authentication on, where each API token lists its own.
    public var openModeOrigins: [String] = []

    /// Creates the default configuration: credentials required.
    public init() {}

    /// Open mode: no credentials, every request acts as one user — for development on loopback only.
    public static var openMode: AuthenticationConfiguration {
        var configuration = AuthenticationConfiguration()
        configuration.requiresAuthentication = false
        return configuration
    }
}

/// How sign-in attempts are slowed down.
///
/// Failures are counted per account **and client address**: after ``freeFailures`` wrong
/// passwords from one address, each further attempt on that account from that address must wait
/// ``firstDelay``, doubling with every failure up to ``maximumDelay``. Nobody can lock an account
/// for its owner, who signs in from another address; a success clears the pair. Independently,
/// one address may make at most ``attemptsPerAddress`` attempts (sign-in or sign-up) per
/// ``addressWindow``. Both answer 429 with `Retry-After`.
public struct SignInLimits: Sendable, Hashable {
    /// Failed attempts on one account from one address that cost no wait: 3.
    public var freeFailures = 3
    /// The wait after ``freeFailures`` failures (doubling with each further one): 1 second.
    public var firstDelay: Duration = .seconds(1)
    /// The longest wait between attempts of one account and address: 15 minutes.
    public var maximumDelay: Duration = .seconds(15 * 60)
    /// How long the failures of an account and address are remembered after the last one: 24 hours.
    public var failureMemory: Duration = .seconds(24 * 3600)
    /// Attempts (failed or not) from one address within ``addressWindow``.
    public var attemptsPerAddress = 30
    /// The window for ``attemptsPerAddress``.
    public var addressWindow: Duration = .seconds(60)
    /// Unsuccessful attempts on one account from all addresses together within ``accountWindow``;
    /// `nil` (app sign-in's default): no limit across addresses.
    ///
    /// It brakes guessing spread over many addresses (a botnet, an IPv6 /64), at a price: whoever
    /// spends the budget keeps the account's owner out too until the window ends. The console sets it
    /// (its administrators are few, and `stratus admin` works without signing in).
    public var failuresPerAccount: Int?
    /// The window for ``failuresPerAccount``: 1 hour.
    public var accountWindow: Duration = .seconds(3600)

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
