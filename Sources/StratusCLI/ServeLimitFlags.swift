import StratusHTTPServer
import StratusServer

/// The flags of `stratus serve` that keep one client from exhausting the server, and who may read
/// `/metrics` (issue 14, findings 4, 5 and 17; Documentation/0001-http-transport.md, "Limits").
///
/// One job: these flags' names, their usage text, and reading them into the configurations.
enum ServeLimitFlags {
    static let names = [
        "max-connections", "max-connections-per-address", "connection-timeout", "max-buffered-body-mb",
        "unauthenticated-requests-per-second", "upload-url-lifetime", "metrics-token", "connection-memory-kb",
    ]

    static let usage = """
        --max-connections (4096) caps open connections, parked long-polls included; the open-file
        limit must allow as many. --max-connections-per-address (128; 0: none) caps those of one
        client address: behind a reverse proxy every connection is the proxy's, so raise it there
        and let the proxy limit its clients. --connection-timeout (30 s) closes connections idle
        that long: a head or body that stalls, a keep-alive between requests. --max-buffered-body-mb
        (256; 0: none) caps request bodies held in memory at once (503 beyond; uploads stream to disk).
        --connection-memory-kb (16) is each connection's buffer for the request head and body chunks,
        held while the connection is open (a head longer than about that is refused).
        --unauthenticated-requests-per-second (10, burst 20; 0: none) limits each client address's
        requests whose credentials fail; they never spend a container's budget.
        --upload-url-lifetime (900 s) is how long an assets/upload URL works; each works once.
        /metrics answers loopback clients only, unless --metrics-token (better: STRATUS_METRICS_TOKEN,
        which `ps` does not show) is set: then only `Authorization: Bearer <token>`, from anywhere.
        """

    /// Reads the limit flags into the two configurations.
    static func apply(_ options: Options, http: inout HTTPServerConfiguration, service: inout ServiceConfiguration) throws {
        http.connectionLimit = try options.integer("max-connections", default: 4096, in: 1...1_000_000)
        http.perAddressConnectionLimit = try options.integer("max-connections-per-address", default: 128, in: 0...1_000_000)
        http.connectionTimeout = try options.integer("connection-timeout", default: 30, in: 1...3600)
        http.maximumBufferedBodyBytes = try options.integer("max-buffered-body-mb", default: 256, in: 0...1_000_000) << 20
        http.connectionMemoryLimit = try options.integer("connection-memory-kb", default: http.connectionMemoryLimit >> 10, in: 8...1024) << 10
        let failures = try options.integer("unauthenticated-requests-per-second", default: 10, in: 0...10_000_000)
        service.quotas.unauthenticatedRequestsPerSecond = failures == 0 ? nil : Double(failures)
        service.quotas.unauthenticatedBurst = Double(failures * 2)
        service.assets.uploadURLLifetime = Int64(try options.integer("upload-url-lifetime", default: 900, in: 10...86_400)) * 1000
    }

    /// Who may read `/metrics`: loopback, or the holders of `--metrics-token`.
    static func metricsAccess(_ options: Options) -> MetricsAccess {
        MetricsAccess(bearerToken: options.string("metrics-token", default: ""))
    }
}
