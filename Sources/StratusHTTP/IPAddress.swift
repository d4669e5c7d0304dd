import Foundation

/// A numeric IPv4 or IPv6 address, parsed from its text form.
///
/// An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, as a dual-stack socket reports an IPv4 peer)
/// is the IPv4 address, so it matches rules written either way.
///
/// ```swift
/// IPAddress("127.0.0.1")?.isLoopback   // true
/// IPAddress("[::1]:8420")              // nil: brackets and ports are not part of an address
/// ```
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6, in network order.
    public let bytes: [UInt8]

    /// Parses a numeric address (no brackets, port or zone); `nil` if `text` is not one.
    public init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        let all = withUnsafeBytes(of: &v6) { Array($0) }
        bytes = all.prefix(10).allSatisfy { $0 == 0 } && all[10] == 0xFF && all[11] == 0xFF ? Array(all.suffix(4)) : all
    }

    /// Whether this is IPv4.
    public var isIPv4: Bool { bytes.count == 4 }

    /// Whether this is a loopback address: `127.0.0.0/8` or `::1`.
    public var isLoopback: Bool {
        isIPv4 ? bytes[0] == 127 : bytes == [UInt8](repeating: 0, count: 15) + [1]
    }

    /// Whether the first `prefixLength` bits equal those of `network`.
    public func isIn(_ network: IPAddress, prefixLength: Int) -> Bool {
        guard bytes.count == network.bytes.count else { return false }
        var remaining = prefixLength
        for index in bytes.indices where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if bytes[index] & mask != network.bytes[index] & mask { return false }
            remaining -= bits
        }
        return true
    }

    /// The canonical text form (`127.0.0.1`, `::1`).
    public var description: String {
        var buffer = [CChar](repeating: 0, count: 64)
        var source = bytes
        let family = isIPv4 ? AF_INET : AF_INET6
        guard inet_ntop(family, &source, &buffer, socklen_t(buffer.count)) != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Loopback names and addresses, as open-mode servers check them (design note 0006, "Modes").
public enum Loopback {
    /// Whether `host` (a name or numeric address, without port or brackets) is loopback:
    /// `localhost`, a name under `.localhost` (RFC 6761), `127.0.0.0/8` or `::1`.
    public static func isLoopbackHost(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        return IPAddress(name)?.isLoopback ?? false
    }

    /// The host of a `Host` header value (`name`, `name:port`, `[v6]`, `[v6]:port`), or `nil` if malformed.
    ///
    /// Read by UTF-8 byte (`[`, `]` and `:` are one byte each and never part of another character's
    /// encoding): splitting by `Character` ran grapheme breaking over the header on every request.
    public static func host(ofAuthority authority: String) -> String? {
        let bytes = authority.utf8
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            let rest = authority.utf8[bytes.index(after: close)...]
            guard rest.isEmpty || (rest.first == UInt8(ascii: ":") && isPort(Substring(rest.dropFirst()))) else { return nil }
            return String(authority[bytes.index(after: bytes.startIndex)..<close])
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return authority.isEmpty ? nil : authority }
        let port = Substring(bytes[bytes.index(after: colon)...])
        guard colon != bytes.startIndex, !port.utf8.contains(UInt8(ascii: ":")), isPort(port) else { return nil }
        return String(authority[..<colon])
    }

    /// Whether `text` is a port: one to five ASCII digits (`Character.isNumber` would also take
    /// other scripts' digits and fractions, such as `٨` or `½`).
    private static func isPort(_ text: Substring) -> Bool {
        (1...5).contains(text.utf8.count) && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// Whether a `Host` header value names a loopback host.
    public static func isLoopbackAuthority(_ authority: String) -> Bool {
        host(ofAuthority: authority).map(isLoopbackHost) ?? false
    }

    /// Whether a browser `Origin` (`http://localhost:3000`, `https://[::1]`) is an http or https page on a loopback host.
    public static func isLoopbackOrigin(_ origin: String) -> Bool {
        let lowercased = origin.lowercased()
        for scheme in ["http://", "https://"] where lowercased.hasPrefix(scheme) {
            return isLoopbackAuthority(String(lowercased.dropFirst(scheme.count)))
        }
        return false
    }
}
