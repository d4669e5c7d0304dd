public import Foundation

/// Sends hand-made bytes to a loopback server and reads whatever comes back.
///
/// For tests that need what a well-behaved client never sends: truncated
/// bodies, invalid UTF-8, odd methods. Each exchange runs on its own thread, so
/// hundreds can block at once without starving Swift's cooperative pool.
///
/// ```swift
/// let reply = try await RawHTTPConnection.exchange(port: server.http.port, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
/// #expect(reply.status == 200)
/// ```
public enum RawHTTPConnection {
    /// What the server sent back.
    public struct Reply: Sendable {
        /// Every byte received until the server closed the connection.
        public var raw: Data
        /// The status code of the first response, or `nil` if none arrived.
        public var status: Int? {
            guard let line = String(decoding: raw.prefix(32), as: UTF8.self).split(separator: "\r\n").first else { return nil }
            let parts = line.split(separator: " ")
            return parts.count >= 2 ? Int(parts[1]) : nil
        }
        /// The bytes after the first blank line.
        public var body: Data {
            guard let range = raw.range(of: Data("\r\n\r\n".utf8)) else { return Data() }
            return raw[range.upperBound...]
        }
        /// The header section of the first response.
        public var head: String {
            guard let range = raw.range(of: Data("\r\n\r\n".utf8)) else { return String(decoding: raw, as: UTF8.self) }
            return String(decoding: raw[..<range.lowerBound], as: UTF8.self)
        }
    }

    /// Why an exchange failed.
    public struct Failure: Error, CustomStringConvertible {
        /// What failed, with errno's text.
        public var description: String
    }

    /// Sends `request` as UTF-8 and reads the reply.
    public static func exchange(port: UInt16, _ request: String, closeWrite: Bool = false, timeout: Int = 30) async throws -> Reply {
        try await exchange(port: port, bytes: Data(request.utf8), closeWrite: closeWrite, timeout: timeout)
    }

    /// Connects to 127.0.0.1:`port`, writes `bytes`, optionally half-closes, and reads until the server closes.
    ///
    /// - Parameters:
    ///   - port: The server's port on 127.0.0.1.
    ///   - bytes: Exactly what to send.
    ///   - closeWrite: Whether to shut down the sending side after writing. libmicrohttpd treats a
    ///     half-closed connection as gone, so only tests of abandoned requests set it; others send
    ///     `Connection: close` and read until the server closes.
    ///   - timeout: Seconds to wait for data before giving up on the read, on an ordinary build
    ///     (``TestTimeScale`` stretches it under a sanitizer).
    public static func exchange(port: UInt16, bytes: Data, closeWrite: Bool = false, timeout: Int = 30) async throws -> Reply {
        try await exchange(port: port, bytes: bytes, closeWrite: closeWrite, timeout: timeout, read: true)
    }

    /// Like ``exchange(port:bytes:closeWrite:timeout:)``, from another loopback address (`127.0.0.2`, …),
    /// so that one test can be several clients as the server sees them.
    public static func exchange(port: UInt16, bytes: Data, from source: String, timeout: Int = 30) async throws -> Reply {
        try await exchange(port: port, bytes: bytes, closeWrite: false, timeout: timeout, read: true, source: source)
    }

    /// Connects, writes `request` and closes the socket at once without reading: a client that hangs up.
    public static func sendAndHangUp(port: UInt16, _ request: String) async throws {
        _ = try await exchange(port: port, bytes: Data(request.utf8), closeWrite: true, timeout: 0, read: false)
    }

    private static func exchange(
        port: UInt16, bytes: Data, closeWrite: Bool, timeout: Int, read: Bool, source: String? = nil
    ) async throws -> Reply {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(
                    with: Result {
                        try blockingExchange(port: port, bytes: bytes, closeWrite: closeWrite, timeout: timeout, read: read, source: source)
                    })
            }
            thread.stackSize = 256 << 10
            thread.start()
        }
    }

    private static func blockingExchange(
        port: UInt16, bytes: Data, closeWrite: Bool, timeout: Int, read: Bool, source: String?
    ) throws -> Reply {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var tv = timeval(tv_sec: TestTimeScale.scaled(seconds: timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw Failure(description: "bind \(source): \(String(cString: strerror(errno)))") }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(description: "connect: \(String(cString: strerror(errno)))") }
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let sent = send(fd, buffer.baseAddress.unsafelyUnwrapped + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 {
                    if errno == EINTR { continue }
                    // The server may close early (a refused body); keep what it answered.
                    if errno == EPIPE || errno == ECONNRESET { break }
                    throw Failure(description: "send: \(String(cString: strerror(errno)))")
                }
                offset += sent
            }
        }
        if closeWrite { shutdown(fd, Int32(SHUT_WR)) }
        var received = Data()
        guard read else { return Reply(raw: received) }
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count > 0 {
                received.append(contentsOf: chunk[0..<count])
            } else if count == 0 || errno == ECONNRESET {
                break
            } else if errno != EINTR {
                throw Failure(description: "recv: \(String(cString: strerror(errno))) after \(received.count) bytes")
            }
        }
        return Reply(raw: received)
    }
}
