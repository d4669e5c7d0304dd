public import Foundation
public import StratusHTTP

/// How a ``CloudKitService`` behaves: limits, secrets, clocks.
///
/// ```swift
/// var configuration = ServiceConfiguration(tokenSecret: secret)
/// configuration.limits.maximumRecordSize = 512 << 10
/// ```
public struct ServiceConfiguration: Sendable {
    /// Request and record limits (Apple's CloudKit Web Services Reference: “Limits and quotas”).
    public var limits = ServiceLimits()
    /// The key that seals sync tokens and continuation markers; keep it stable across restarts.
    public var tokenSecret: Data
    /// The user every request acts as while the server runs without accounts ("open mode").
    ///
    /// Used only while ``AuthenticationConfiguration/requiresAuthentication`` is off: such a
    /// server is for development on loopback only.
    public var openModeUserRecordName = "_00000000000000000000000000000001"
    /// Whether and how requests are authenticated; credentials are required by default, open mode
    /// is ``AuthenticationConfiguration/openMode``.
    public var authentication = AuthenticationConfiguration()
    /// Now, in milliseconds since 1970.
    public var now: @Sendable () -> Int64 = LiveClock.milliseconds
    /// A new server-generated record name.
    public var makeRecordName: @Sendable () -> String = LiveClock.uuidString
    /// Push delivery: token lifetime, long-poll timeout, backlog (design note 0007).
    public var push = PushConfiguration()
    /// Asset storage: directory, size limit, URL lifetimes, garbage collection (design note 0007).
    public var assets = AssetConfiguration()
    /// Request rates and storage quotas per container (design note 0017).
    public var quotas = QuotaConfiguration()
    /// The base of the URLs this server hands out (sign-in and verification links, courier, asset
    /// upload and download), such as `https://stratus.example.com`.
    ///
    /// When `nil`, the server's own address each request arrived at (`http://127.0.0.1:8420`) —
    /// or, in open mode, the request's `Host` once it is known to be a loopback name — never a
    /// `Host` header a client chose. Set it whenever clients reach the server by a name.
    public var publicBaseURL: String?
    /// The reverse proxies whose `X-Forwarded-For` (client address) and `X-Forwarded-Proto` are
    /// believed; none by default (``TrustedProxies``).
    ///
    /// ``CloudKitService/register(on:)`` installs a ``TrustedProxyMiddleware`` with them, so that
    /// sign-in throttles and per-address request limits see each client rather than the proxy.
    public var trustedProxies = TrustedProxies()

    /// Creates a configuration with the given token secret.
    public init(tokenSecret: Data) {
        self.tokenSecret = tokenSecret
    }
}
