import Foundation

/// A minimal blocking HTTP/1.1 keep-alive client over one POSIX socket to 127.0.0.1.
///
/// The measuring tool of the records benchmark: one `send` call is one `send(2)`
/// of the whole request and as few `recv(2)` calls as the reply needs, with
/// `TCP_NODELAY`, no header maps and no extra copies beyond the returned body.
/// It understands exactly what the Stratus transport answers: a status line,
/// headers and a `Content-Length` body (no chunked encoding). One instance is
/// one connection; it is not thread-safe, so each client thread owns its own.
///
/// ```swift
/// let client = try LoopbackHTTPClient(port: server.port)
/// let reply = try client.send("POST", "/database/1/…/records/modify", body: bytes)
/// ```
public final class LoopbackHTTPClient {
    /// One reply.
    public struct Response: Sendable {
        /// The status code.
        public var status: Int
        /// The body bytes.
        public var body: [UInt8]
        /// The `X-Apple-CloudKit-Web-Auth-Token` header: the web auth token the server issued for the next request.
        public var webAuthToken: String?
        /// The body as UTF-8 text, for error messages.
        public var text: String { String(decoding: body, as: UTF8.self) }
        /// The values of the header fields named in ``LoopbackHTTPClient/capturing``, by lowercase name.
        public var captured: [String: String] = [:]
    }

    /// Why an exchange failed.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        init(_ what: String) { description = "\(what): \(String(cString: strerror(errno)))" }
        init(message: String) { description = message }
    }

    /// The server's port.
    public let port: UInt16
    /// Lowercase names of the reply header fields to return in ``Response/captured`` (none by
    /// default, so measuring clients pay nothing for it).
    public var capturing: Set<String> = []
    private var fd: Int32 = -1
    private var buffer: UnsafeMutableRawPointer
    private var capacity: Int
    private var start = 0
    private var end = 0

    /// Connects to 127.0.0.1:`port`.
    public init(port: UInt16) throws {
        self.port = port
        capacity = 256 << 10
        buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        try connectSocket()
    }

    deinit {
        if fd >= 0 { close(fd) }
        buffer.deallocate()
    }

    private func connectSocket() throws {
        if fd >= 0 { close(fd) }
        start = 0
        end = 0
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure("connect") }
    }

    /// Sends one request and reads its reply; reconnects once if the server had closed the connection.
    ///
    /// - Parameters:
    ///   - method: `GET` or `POST`.
    ///   - path: The request target.
    ///   - body: The request body (sent with `Content-Type: application/json` when not empty).
    ///   - headers: Extra header fields, in order.
    public func send(_ method: String, _ path: String, body: [UInt8] = [], headers: [(String, String)] = []) throws -> Response {
        try send(method, path, body: body, rawHeaders: headers.flatMap { Array("\($0.0): \($0.1)\r\n".utf8) })
    }

    /// ``send(_:_:body:headers:)`` with the extra header lines already encoded (`Name: value\r\n` each),
    /// so a benchmark does not pay for formatting them on every request.
    public func send(_ method: String, _ path: String, body: [UInt8] = [], rawHeaders: [UInt8]) throws -> Response {
        var request = Array("\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8)
        request += rawHeaders
        if !body.isEmpty || method == "POST" {
            request += Array("Content-Type: application/json\r\nContent-Length: \(body.count)\r\n".utf8)
        }
        request += [13, 10]
        request += body
        do {
            try write(request)
            return try readResponse()
        } catch let failure as Failure where failure.description.hasPrefix("closed") {
            try connectSocket()
            try write(request)
            return try readResponse()
        }
    }

    private func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(fd, raw.baseAddress.unsafelyUnwrapped + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 {
                    if errno == EINTR { continue }
                    if errno == EPIPE || errno == ECONNRESET { throw Failure(message: "closed while sending") }
                    throw Failure("send")
                }
                offset += sent
            }
        }
    }

    /// Reads at least one more byte into the buffer, growing or compacting it as needed.
    private func fill() throws {
        if end == capacity {
            if start > 0 {
                buffer.copyMemory(from: buffer + start, byteCount: end - start)
                end -= start
                start = 0
            } else {
                let bigger = UnsafeMutableRawPointer.allocate(byteCount: capacity * 2, alignment: 16)
                bigger.copyMemory(from: buffer, byteCount: end)
                buffer.deallocate()
                buffer = bigger
                capacity *= 2
            }
        }
        while true {
            let count = recv(fd, buffer + end, capacity - end, 0)
            if count > 0 {
                end += count
                return
            }
            if count == 0 || errno == ECONNRESET { throw Failure(message: "closed by the server") }
            if errno != EINTR { throw Failure("recv") }
        }
    }

    private func readResponse() throws -> Response {
        // Find the end of the header section (headers are small: rescanning after each read is cheap).
        var headerEnd = -1
        while true {
            let bytes = buffer.assumingMemoryBound(to: UInt8.self)
            var index = start
            while index + 3 < end {
                if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13, bytes[index + 3] == 10 {
                    headerEnd = index + 4
                    break
                }
                index += 1
            }
            if headerEnd >= 0 { break }
            try fill()
        }
        // Status line and the two headers that matter, read from the bytes (Foundation's
        // trimming cost the client as much CPU as a small server handler).
        let bytes = UnsafeBufferPointer(start: buffer.assumingMemoryBound(to: UInt8.self) + start, count: headerEnd - start)
        guard bytes.count >= 12, bytes[0] == UInt8(ascii: "H"), let status = Int(String(decoding: bytes[9..<12], as: UTF8.self)) else {
            throw Failure(message: "malformed status line: \(String(decoding: bytes.prefix(80), as: UTF8.self))")
        }
        var length = 0
        var closes = false
        var webAuthToken: String?
        var captured: [String: String] = [:]
        var lineStart = 0
        for index in 0..<(bytes.count - 1) where bytes[index] == 13 && bytes[index + 1] == 10 {
            let line = bytes[lineStart..<index]
            lineStart = index + 2
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = String(decoding: line[..<colon], as: UTF8.self).lowercased()
            let value = String(decoding: line[(colon + 1)...].drop { $0 == 32 || $0 == 9 }, as: UTF8.self)
            switch name {
            case "content-length": length = Int(value) ?? 0
            case "transfer-encoding": throw Failure(message: "chunked replies are not supported by this client")
            case "connection": closes = value.lowercased() == "close"
            case "x-apple-cloudkit-web-auth-token":
                webAuthToken = value
                if capturing.contains(name) { captured[name] = value }
            default: if !capturing.isEmpty, capturing.contains(name) { captured[name] = value }
            }
        }
        let headerLength = headerEnd - start
        while end - start < headerLength + length { try fill() }
        let bodyStart = start + headerLength
        let body = [UInt8](UnsafeRawBufferPointer(start: buffer + bodyStart, count: length))
        start = bodyStart + length
        if start == end {
            start = 0
            end = 0
        }
        if closes { try connectSocket() }
        return Response(status: status, body: body, webAuthToken: webAuthToken, captured: captured)
    }
}

/// Nanoseconds on the monotonic clock.
public func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// The `p`-th percentile (0…100) of a non-empty list, nearest-rank.
public func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs in the bytes.
    public func contains(_ needle: String) -> Bool { firstRange(of: needle, backwards: false) != nil }

    /// The JSON string value after the last (or first) `"key":"`, without unescaping.
    ///
    /// Enough to read change tags and sync tokens (base64url, no escapes) from a reply
    /// without decoding it; the benchmark verifies full replies separately, untimed.
    public func jsonString(after key: String, last: Bool = false) -> String? {
        guard let range = firstRange(of: "\"\(key)\":\"", backwards: last) else { return nil }
        var index = range.upperBound
        while index < count, self[index] != UInt8(ascii: "\"") { index += 1 }
        return String(decoding: self[range.upperBound..<index], as: UTF8.self)
    }

    private func firstRange(of text: String, backwards: Bool) -> Range<Int>? {
        let needle = Array(text.utf8)
        guard !needle.isEmpty, needle.count <= count else { return nil }
        return withUnsafeBufferPointer { bytes in
            func matches(at position: Int) -> Bool {
                for offset in 0..<needle.count where bytes[position + offset] != needle[offset] { return false }
                return true
            }
            let lastStart = count - needle.count
            if backwards {
                var position = lastStart
                while position >= 0 {
                    if matches(at: position) { return position..<(position + needle.count) }
                    position -= 1
                }
            } else {
                for position in 0...lastStart where matches(at: position) { return position..<(position + needle.count) }
            }
            return nil
        }
    }
}

/// Standard base64 percent-encoded for a query value (`+`, `/`, `=`), cheaply: the client's share
/// of a request that carries the web auth token the previous reply issued.
public func percentEncoded(base64 token: String) -> String {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(token.utf8.count + 16)
    for byte in token.utf8 {
        switch byte {
        case UInt8(ascii: "+"): bytes += Array("%2B".utf8)
        case UInt8(ascii: "/"): bytes += Array("%2F".utf8)
        case UInt8(ascii: "="): bytes += Array("%3D".utf8)
        default: bytes.append(byte)
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// CPU time this process has used (user and system, every thread: in-process servers and their
/// clients), in seconds: unlike wall time, it does not grow while the work waits for a core on a
/// loaded machine.
public func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return user + system
}
