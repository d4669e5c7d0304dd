/// Where and how an ``HTTPServer`` listens, and the limits that keep one client from exhausting it.
///
/// ```swift
/// var configuration = HTTPServerConfiguration()
/// configuration.port = 0 // any free port; read it back from `server.port`
/// configuration.perAddressConnectionLimit = 256 // many users behind one NAT address
/// ```
///
/// The connection limits are libmicrohttpd's (`MHD_OPTION_CONNECTION_LIMIT`,
/// `MHD_OPTION_PER_IP_CONNECTION_LIMIT`, `MHD_OPTION_CONNECTION_TIMEOUT`); see
/// Documentation/0001-http-transport.md, "Limits".
public struct HTTPServerConfiguration: Sendable {
    /// The address to bind: an IPv4 or IPv6 literal. `127.0.0.1` by default.
    public var host: String = "127.0.0.1"
    /// The TCP port; `0` picks a free one. 8420 by default.
    public var port: UInt16 = 8420
    /// Threads that run the event loop and immediate handlers; about twice the cores.
    public var threadPoolSize: Int = 4
    /// The most connections open at once, parked long-polls included; further clients wait in
    /// the listen backlog. 4096 by default (the open-file limit must allow as many, plus the store's).
    public var connectionLimit: Int = 4096
    /// The most connections open at once from one client address; a connection over it is closed
    /// as soon as it is accepted. 128 by default, so one address cannot take the whole
    /// ``connectionLimit``; `0` for no per-address limit.
    ///
    /// Behind a reverse proxy every connection comes from the proxy's address: raise this (or set
    /// `0`) there and let the proxy limit its clients.
    public var perAddressConnectionLimit: Int = 128
    /// Seconds a connection may sit idle — a head that never completes, a stalled body, a
    /// keep-alive connection between requests — before it is closed. 30 by default.
    /// Parked connections (long-polls, head checks) do not time out.
    public var connectionTimeout: Int = 30
    /// Per-connection buffer for the request head and body chunks, in bytes; 16 KiB by default.
    ///
    /// libmicrohttpd's memory pool (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`): a request head must fit
    /// in it (a longer one is refused with 431), and the whole of it stays resident while a
    /// keep-alive connection is open, because libmicrohttpd clears it after every request. So it
    /// is what an idle connection costs: 10,000 of them hold 160 MiB at 16 KiB.
    public var connectionMemoryLimit: Int = 16 << 10
    /// The most bytes of request bodies held in memory at once, across every connection; a body
    /// that would pass it is refused with 503 `TRY_AGAIN_LATER`. Bodies a route streams (asset
    /// uploads, to disk) do not count. 256 MiB by default; `0` for no limit.
    public var maximumBufferedBodyBytes: Int = 256 << 20
    /// The most bytes of a refused request's body that are read and thrown away before the
    /// answer, so that a client still sending it reads the answer (a 413, say) instead of a
    /// connection reset. A larger declared body is answered at once and the connection closed; a
    /// body refused while it is read is cut off here. 8 MiB by default.
    public var maximumDiscardedBodyBytes: Int = 8 << 20
    /// The certificate and key to serve HTTPS with; plain HTTP when `nil` (the default).
    /// ``HTTPServer/reloadTLS(_:)`` replaces it on a running server.
    public var tls: TLSIdentity?
    /// GnuTLS's priority string for HTTPS: which protocol versions and ciphers are offered.
    /// TLS 1.2 and 1.3 only, GnuTLS's "NORMAL" ciphers, by default.
    public var tlsPriorities: String = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"
    /// How long ``HTTPServer/shutdown(gracePeriod:)`` lets in-flight requests finish by default.
    public var shutdownGracePeriod: Duration = .seconds(10)

    /// Creates the default configuration.
    public init() {}
}
