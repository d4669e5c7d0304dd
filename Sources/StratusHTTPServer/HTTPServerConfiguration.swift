/// Where and how an ``HTTPServer`` listens.
///
/// ```swift
/// var configuration = HTTPServerConfiguration()
/// configuration.port = 0 // any free port; read it back from `server.port`
/// ```
public struct HTTPServerConfiguration: Sendable {
    /// The address to bind: an IPv4 or IPv6 literal. `127.0.0.1` by default.
    public var host: String = "127.0.0.1"
    /// The TCP port; `0` picks a free one. 8420 by default.
    public var port: UInt16 = 8420
    /// Threads that run the event loop and immediate handlers; about twice the cores.
    public var threadPoolSize: Int = 4
    /// The most connections open at once; further clients wait in the listen backlog.
    public var connectionLimit: Int = 4096
    /// Seconds a connection may sit idle (between requests, or stalled mid-body) before it is closed.
    /// Parked (long-poll) connections do not time out.
    public var connectionTimeout: Int = 60
    /// Per-connection buffer for the request head and body chunks, in bytes.
    public var connectionMemoryLimit: Int = 64 << 10
    /// How long ``HTTPServer/shutdown(gracePeriod:)`` lets in-flight requests finish by default.
    public var shutdownGracePeriod: Duration = .seconds(10)

    /// Creates the default configuration.
    public init() {}
}
