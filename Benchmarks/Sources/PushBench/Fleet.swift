import BenchSupport
import Foundation

/// Many long-polls from one thread: N sockets, one GET each, replies gathered with poll(2).
final class Fleet {
    private var fds: [Int32] = []

    deinit { for fd in fds { close(fd) } }

    /// Connects every socket and sends its request.
    func launch(port: UInt16, targets: [String]) throws {
        for target in targets {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw BenchFailure("socket: \(String(cString: strerror(errno))) after \(fds.count)") }
            fds.append(fd)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else { throw BenchFailure("connect: \(String(cString: strerror(errno)))") }
            let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
            guard send(fd, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
                throw BenchFailure("send: \(String(cString: strerror(errno)))")
            }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
    }

    /// Waits until every connection was answered and closed; returns each reply's arrival (monotonic ns) and raw bytes.
    func collect(timeoutSeconds: Double) throws -> [(arrival: UInt64, raw: [UInt8])] {
        let deadline = monotonicNanoseconds() + UInt64(timeoutSeconds * 1e9)
        var buffers = Array(repeating: [UInt8](), count: fds.count)
        var arrivals = Array(repeating: UInt64(0), count: fds.count)
        var open = Set(fds.indices)
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        while !open.isEmpty {
            guard monotonicNanoseconds() < deadline else { throw BenchFailure("\(open.count) of \(fds.count) polls never answered") }
            let indices = Array(open)
            var pollfds = indices.map { pollfd(fd: fds[$0], events: Int16(POLLIN), revents: 0) }
            _ = poll(&pollfds, nfds_t(pollfds.count), 100)
            for (slot, entry) in pollfds.enumerated() where entry.revents != 0 {
                let index = indices[slot]
                while true {
                    let count = recv(fds[index], &chunk, chunk.count, 0)
                    if count > 0 {
                        buffers[index] += chunk[0..<count]
                    } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                        open.remove(index)
                        arrivals[index] = monotonicNanoseconds()
                        break
                    } else {
                        break
                    }
                }
            }
        }
        for fd in fds { close(fd) }
        fds = []
        return zip(arrivals, buffers).map { ($0, $1) }
    }
}
