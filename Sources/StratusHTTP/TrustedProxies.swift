import Foundation

/// The reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` headers are believed.
///
/// Behind a proxy every connection comes from the proxy, so per-address limits would lump all
/// clients together. A request whose peer is one of these proxies gets, as its
/// ``HTTPRequest/remoteAddress``, the **rightmost untrusted** address of `X-Forwarded-For` (the
/// one the outermost trusted proxy saw; addresses further left were written by the client and
/// prove nothing), and as its ``HTTPRequest/scheme`` the last `X-Forwarded-Proto`. From any other
/// peer both headers are ignored, so a client cannot choose its own address.
///
/// ```swift
/// let proxies = try TrustedProxies(["10.0.0.5", "192.168.0.0/16"])
/// router.use(TrustedProxyMiddleware(proxies))
/// ```
public struct TrustedProxies: Sendable, Hashable {
    /// Why an entry is not an address or network.
    public struct ParseError: Error, CustomStringConvertible {
        /// The entry.
        public var entry: String
        /// Names the entry and the expected form.
        public var description: String {
            "trusted proxy '\(entry)' is not an IP address or network such as 10.0.0.5, 10.0.0.0/8 or fd00::/8"
        }
    }

    private struct Network: Sendable, Hashable {
        var address: IPAddress
        var prefixLength: Int
    }

    private let networks: [Network]

    /// No trusted proxies: every request's address is its socket's peer.
    public init() {
        networks = []
    }

    /// Proxies given as addresses (`10.0.0.5`, `::1`) or networks (`10.0.0.0/8`, `fd00::/8`).
    ///
    /// - Throws: ``ParseError`` naming the first entry that is neither.
    public init(_ entries: [String]) throws(ParseError) {
        var networks: [Network] = []
        for entry in entries {
            let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = IPAddress(String(parts[0])) else { throw ParseError(entry: entry) }
            let bits = address.bytes.count * 8
            var prefixLength = bits
            if parts.count == 2 {
                // An IPv4-mapped network (::ffff:10.0.0.0/104) is its IPv4 network.
                let written = Int(parts[1]) ?? -1
                prefixLength = address.isIPv4 && parts[0].contains(":") ? written - 96 : written
                guard (0...bits).contains(prefixLength) else { throw ParseError(entry: entry) }
            }
            networks.append(Network(address: address, prefixLength: prefixLength))
        }
        self.networks = networks
    }

    /// Whether no proxy is trusted.
    public var isEmpty: Bool { networks.isEmpty }

    /// Whether `address` is a trusted proxy.
    public func contains(_ address: IPAddress) -> Bool {
        networks.contains { address.isIn($0.address, prefixLength: $0.prefixLength) }
    }

    /// The client a trusted proxy forwarded for, from the `X-Forwarded-For` values in order
    /// (each a comma-separated list): the rightmost hop that is not a trusted proxy, or the
    /// leftmost if all are; `nil` if the list is empty or a hop that would decide is not an address.
    public func client(forwardedFor values: [String]) -> IPAddress? {
        let hops = values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        var leftmost: IPAddress?
        for hop in hops.reversed() {
            guard let address = Self.address(ofHop: hop) else { return leftmost }
            if !contains(address) { return address }
            leftmost = address
        }
        return leftmost
    }

    /// Rewrites the request's address and scheme when its peer is a trusted proxy.
    public func apply(to request: inout HTTPRequest) {
        guard !isEmpty, let peer = request.remoteAddress.flatMap(IPAddress.init), contains(peer) else { return }
        if let client = client(forwardedFor: request.headers.values(for: "X-Forwarded-For")) {
            request.remoteAddress = client.description
        }
        let proto = request.headers.values(for: "X-Forwarded-Proto").last?.split(separator: ",").last?
            .trimmingCharacters(in: .whitespaces).lowercased()
        if let proto, proto == "http" || proto == "https" { request.scheme = proto }
    }

    /// The address of one `X-Forwarded-For` hop: `1.2.3.4`, `1.2.3.4:5678`, `::1` or `[::1]:5678`.
    private static func address(ofHop hop: String) -> IPAddress? {
        if let address = IPAddress(hop) { return address }
        return Loopback.host(ofAuthority: hop).flatMap(IPAddress.init)
    }
}

/// Applies ``TrustedProxies`` to every request before anything reads its address.
///
/// It must run before middleware and handlers that use ``HTTPRequest/remoteAddress``:
/// `CloudKitService.register(on:)` adds it with ``Router/useFirst(_:)`` when its configuration
/// names trusted proxies.
public struct TrustedProxyMiddleware: HTTPMiddleware {
    private let proxies: TrustedProxies

    /// Creates the middleware.
    public init(_ proxies: TrustedProxies) {
        self.proxies = proxies
    }

    /// Replaces the proxy's address with its client's.
    public func prepare(_ request: inout HTTPRequest) throws -> HTTPResponse? {
        proxies.apply(to: &request)
        return nil
    }
}
