import Foundation
import Synchronization

/// Many long-polls at once from one thread: N sockets, one GET each, replies gathered with poll(2).
///
/// A thread per connection (``RawHTTPConnection``) would cost the test 1,000
/// threads; this keeps the client side to one, so the measurement is the
/// server's.
final class PollFleet: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let port: UInt16
    private let targets: [String]
    private let sockets = Mutex<[Int32]>([])

    init(port: UInt16, targets: [String]) {
        self.port = port
        self.targets = targets
    }

    deinit {
        for fd in sockets.withLock({ $0 }) where fd >= 0 { close(fd) }
    }

    /// Connects every socket and sends its request.
    func launch() async throws {
        let fds = try await Self.onThread { [port, targets] in
            var fds: [Int32] = []
            for target in targets {
                let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno))) after \(fds.count)") }
                fds.append(fd)
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = port.bigEndian
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
                guard connected == 0 else { throw Failure(description: "connect: \(String(cString: strerror(errno)))") }
                let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
                guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
                    throw Failure(description: "send: \(String(cString: strerror(errno)))")
                }
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            }
            return fds
        }
        sockets.withLock { $0 = fds }
    }

    /// Waits for every reply (the server closes each connection after it); returns bodies and arrival times, in launch order.
    func collect(timeout: Duration) async throws -> [(body: Data, arrival: ContinuousClock.Instant)] {
        let fds = sockets.withLock { $0 }
        return try await Self.onThread {
            let deadline = ContinuousClock.now + timeout
            var buffers = Array(repeating: Data(), count: fds.count)
            var arrivals = Array(repeating: ContinuousClock.now, count: fds.count)
            var open = Set(fds.indices)
            var chunk = [UInt8](repeating: 0, count: 16 << 10)
            while !open.isEmpty {
                guard ContinuousClock.now < deadline else { throw Failure(description: "\(open.count) of \(fds.count) polls never answered") }
                var pollfds = open.map { pollfd(fd: fds[$0], events: Int16(POLLIN), revents: 0) }
                let indices = Array(open)
                let ready = poll(&pollfds, nfds_t(pollfds.count), 100)
                guard ready >= 0 || errno == EINTR else { throw Failure(description: "poll: \(String(cString: strerror(errno)))") }
                for (slot, entry) in pollfds.enumerated() where entry.revents != 0 {
                    let index = indices[slot]
                    while true {
                        let count = recv(fds[index], &chunk, chunk.count, 0)
                        if count > 0 {
                            buffers[index].append(contentsOf: chunk[0..<count])
                        } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                            open.remove(index)
                            arrivals[index] = .now
                            break
                        } else {
                            break
                        }
                    }
                }
            }
            return zip(buffers, arrivals).map { raw, arrival in
                let body = raw.range(of: Data("\r\n\r\n".utf8)).map { Data(raw[$0.upperBound...]) } ?? Data()
                return (body, arrival)
            }
        }
    }

    private static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }
}
