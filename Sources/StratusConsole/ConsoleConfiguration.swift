import Foundation
public import StratusServer
public import StratusServerCrypto

/// How the console signs administrators in and keeps them signed in.
///
/// ```swift
/// var configuration = ConsoleConfiguration()
/// configuration.secureCookies = true   // the server is reached over HTTPS
/// ```
public struct ConsoleConfiguration: Sendable {
    /// Whether the session cookie says `Secure`: set it when the server serves TLS or sits behind
    /// a TLS-terminating proxy. A request a trusted proxy marks `https` gets `Secure` regardless.
    public var secureCookies = false
    /// How long a session works after sign-in: 12 hours.
    public var sessionLifetime: Duration = .seconds(12 * 3600)
    /// How sign-in attempts are slowed down (the same rule as app sign-in, separate tables), with
    /// a limit across addresses app sign-in does not set: 100 unsuccessful attempts per
    /// administrator per hour, from all addresses together.
    public var signInLimits: SignInLimits = {
        var limits = SignInLimits()
        limits.failuresPerAccount = 100
        return limits
    }()
    /// The Argon2id costs of new administrator passwords.
    public var passwordHashing: PasswordHasher.Configuration = .interactive
    /// The shortest password `stratus admin create` accepts: 12 characters.
    public var minimumPasswordLength = 12
    /// Whether the console answers only requests from loopback addresses (`stratus serve
    /// --console-loopback-only`): elsewhere it is as absent as on a server without one (404).
    public var loopbackOnly = false
    /// The clock, in milliseconds since 1970.
    public var now: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }

    /// The defaults.
    public init() {}
}
