import CMicroHTTPD
import Foundation

/// An IPv4 or IPv6 socket address parsed from a literal host.
struct SocketAddress {
    private var storage: sockaddr_storage
    let isIPv6: Bool
    let urlHost: String

    init(host: String, port: UInt16) throws(HTTPServerError) {
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        var storage = sockaddr_storage()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            withUnsafeBytes(of: v4) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
            self.storage = storage
            isIPv6 = false
            urlHost = host
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            withUnsafeBytes(of: v6) { bytes in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: bytes) }
            }
            self.storage = storage
            isIPv6 = true
            urlHost = "[\(host)]"
        } else {
            throw HTTPServerError(code: .invalidAddress, message: "'\(host)' is not an IPv4 or IPv6 address literal")
        }
    }

    /// Calls `body` with a pointer to the `sockaddr`, valid only during the call.
    mutating func withSockaddr<T>(_ body: (UnsafeMutableRawPointer) -> T) -> T {
        withUnsafeMutableBytes(of: &storage) { raw in
            // NB: sockaddr_storage is never empty, so the base address exists.
            body(raw.baseAddress.unsafelyUnwrapped)
        }
    }
}
