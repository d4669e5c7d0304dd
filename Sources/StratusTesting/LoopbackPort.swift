import Foundation

/// A TCP socket bound to an ephemeral port of 127.0.0.1: for a port nothing listens on, or a
/// listener of a test's own.
///
/// ```swift
/// let bound = try LoopbackPort.bind()
/// defer { close(bound.descriptor) }
/// print("bound to 127.0.0.1:\(bound.port)")
/// ```
public enum LoopbackPort {
    /// Why no port could be bound.
    public struct Failure: Error, CustomStringConvertible {
        /// The failing call, with errno's text.
        public var description: String
    }

    /// A new socket bound to 127.0.0.1 on a port the kernel chose, listening with `backlog` when
    /// given; the caller closes the descriptor.
    ///
    /// - Parameters:
    ///   - backlog: Listen with this backlog; `nil` leaves the socket bound only.
    ///   - reuseAddress: Set `SO_REUSEADDR` first.
    /// - Returns: The descriptor and the port.
    /// - Throws: ``Failure`` when the socket cannot be made, bound or put to listen.
    public static func bind(listening backlog: Int32? = nil, reuseAddress: Bool = false) throws -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        if reuseAddress {
            var yes: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Foundation.bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound, backlog.map({ listen(descriptor, $0) == 0 }) ?? true else {
            let failure = Failure(description: "bind or listen on 127.0.0.1: \(String(cString: strerror(errno)))")
            close(descriptor)
            throw failure
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }
}
