public import Foundation
import Synchronization

/// One raw TCP connection to a loopback server, held open by hand: for floods of idle
/// connections, clients at other loopback addresses (`127.0.0.2` is a different client to the
/// server, and still loopback), and bodies sent only part-way.
///
/// Blocking calls run on a thread of their own, so hundreds of sockets can wait at once
/// without starving Swift's cooperative pool.
///
/// ```swift
/// let socket = try LoopbackSocket(port: server.http.port, from: "127.0.0.2")
/// try await socket.send(Data("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
/// let reply = try await socket.receiveUntilClosed()
/// #expect(reply.status == 200)
/// ```
public final class LoopbackSocket: Sendable {
    /// Why a socket call failed.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, with errno's text.
        public var description: String
    }

    private let descriptor: Int32
    /// Whether ``close()`` was called, and the blocking calls under way. The descriptor itself is
    /// closed once both hold — closing, no call left — so its number is never reused under a call
    /// (no call starts after close).
    private struct Usage {
        var closing = false
        var calls = 0
    }
    private let usage = Mutex(Usage())

    /// Connects to `127.0.0.1:port` from the loopback address `source`.
    ///
    /// - Parameters:
    ///   - port: The server's port on 127.0.0.1.
    ///   - source: The client's own address, any of 127.0.0.0/8.
    ///   - timeout: Seconds a receive waits for data before giving up, on an ordinary build
    ///     (``TestTimeScale`` stretches it under a sanitizer).
    ///   - first: Bytes to send at once, on the calling thread: a few, such as the start of a
    ///     head (a fresh connection takes them without blocking).
    /// - Throws: ``Failure`` when the socket cannot be made, bound, connected or written.
    public init(port: UInt16, from source: String = "127.0.0.1", timeout: Int = 30, sending first: Data = Data()) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var tv = timeval(tv_sec: TestTimeScale.scaled(seconds: timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        do {
            try Self.withAddress(source, port: 0) { bind(fd, $0, $1) }
            try Self.withAddress("127.0.0.1", port: port) { connect(fd, $0, $1) }
            let sent = first.withUnsafeBytes { Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent == first.count else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
        } catch {
            Foundation.close(fd)
            throw error
        }
        descriptor = fd
    }

    deinit {
        // No call is under way (each holds the socket); the descriptor is open unless close() closed it.
        if !usage.withLock({ $0.closing }) { Foundation.close(descriptor) }
    }

    private static func withAddress(_ host: String, port: UInt16, _ call: (UnsafePointer<sockaddr>, socklen_t) -> Int32) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw Failure(description: "'\(host)' is not an IPv4 address") }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw Failure(description: "\(host):\(port): \(String(cString: strerror(errno)))") }
    }

    /// Sends `data`; stops early, without failing, when the server has closed the connection.
    ///
    /// - Returns: How many bytes were sent.
    @discardableResult
    public func send(_ data: Data) async throws -> Int {
        try await onThread { [descriptor] in
            try data.withUnsafeBytes { buffer -> Int in
                var offset = 0
                while offset < buffer.count {
                    let sent = Foundation.send(descriptor, buffer.baseAddress.unsafelyUnwrapped + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                    if sent < 0 {
                        if errno == EINTR { continue }
                        if errno == EPIPE || errno == ECONNRESET { break }
                        throw Failure(description: "send: \(String(cString: strerror(errno)))")
                    }
                    offset += sent
                }
                return offset
            }
        }
    }

    /// Reads until the server closes the connection (or the receive timeout passes).
    public func receiveUntilClosed() async throws -> RawHTTPConnection.Reply {
        try await onThread { [descriptor] in
            var received = Data()
            var chunk = [UInt8](repeating: 0, count: 64 << 10)
            while true {
                let count = recv(descriptor, &chunk, chunk.count, 0)
                if count > 0 {
                    received.append(contentsOf: chunk[0..<count])
                } else if count == 0 || errno == ECONNRESET {
                    return RawHTTPConnection.Reply(raw: received)
                } else if errno != EINTR {
                    throw Failure(description: "recv: \(String(cString: strerror(errno))) after \(received.count) bytes")
                }
            }
        }
    }

    /// Whether the server closes the connection within the receive timeout, reading whatever it sends first.
    public func isClosedByServer() async -> Bool {
        (try? await receiveUntilClosed()) != nil
    }

    /// Closes the socket. A send or receive under way on another thread ends at once (the
    /// connection is shut down: a receive returns what it had); the descriptor is closed when the
    /// last of them has returned, so its number cannot go to another socket while one still uses it.
    public func close() {
        usage.withLock { usage in
            guard !usage.closing else { return }
            usage.closing = true
            if usage.calls == 0 {
                Foundation.close(descriptor)
            } else {
                shutdown(descriptor, Int32(SHUT_RDWR))
            }
        }
    }

    /// Runs a blocking call on a thread of its own, counted as using the descriptor.
    private func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try usage.withLock { usage in
            guard !usage.closing else { throw Failure(description: "the socket was closed") }
            usage.calls += 1
        }
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { [self] in
                let result = Result { try work() }
                usage.withLock { usage in
                    usage.calls -= 1
                    if usage.closing, usage.calls == 0 {
                        Foundation.close(descriptor)
                    }
                }
                continuation.resume(with: result)
            }
            thread.stackSize = 256 << 10
            thread.start()
        }
    }
}
