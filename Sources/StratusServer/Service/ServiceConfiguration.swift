public import Foundation

/// How a ``CloudKitService`` behaves: limits, secrets, clocks.
///
/// ```swift
/// var configuration = ServiceConfiguration(tokenSecret: secret)
/// configuration.limits.maximumRecordSize = 512 << 10
/// ```
public struct ServiceConfiguration: Sendable {
    /// Request and record limits (protocol.md §11).
    public var limits = ServiceLimits()
    /// The key that seals sync tokens and continuation markers; keep it stable across restarts.
    public var tokenSecret: Data
    /// The user every request acts as while the server runs without accounts ("open mode").
    ///
    /// Used only while ``AuthenticationConfiguration/requiresAuthentication`` is off: such a
    /// server is for development on loopback only.
    public var openModeUserRecordName = "_00000000000000000000000000000001"
    /// Whether and how requests are authenticated; open mode by default.
    public var authentication = AuthenticationConfiguration()
    /// Now, in milliseconds since 1970.
    public var now: @Sendable () -> Int64 = LiveClock.milliseconds
    /// A new server-generated record name.
    public var makeRecordName: @Sendable () -> String = LiveClock.uuidString
    /// Push delivery: token lifetime, long-poll timeout, backlog (design note 0007).
    public var push = PushConfiguration()
    /// Asset storage: directory, size limit, URL lifetimes, garbage collection (design note 0007).
    public var assets = AssetConfiguration()
    /// Request rates and storage quotas per container (design note 0008).
    public var quotas = QuotaConfiguration()
    /// The base of the URLs this server hands out (courier, asset upload and download), such as
    /// `https://stratus.example.com`; when `nil`, `http://` and the request's `Host` header.
    public var publicBaseURL: String?

    /// Creates a configuration with the given token secret.
    public init(tokenSecret: Data) {
        self.tokenSecret = tokenSecret
    }
}
