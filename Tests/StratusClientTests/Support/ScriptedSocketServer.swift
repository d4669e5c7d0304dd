import Foundation
import StratusTesting
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A TCP server on 127.0.0.1 whose answers are written by hand, byte by byte: for a client facing a
/// server that does not speak HTTP properly (an endless header, a body that never ends, a
/// malformed status line, a slow drip). Each connection runs `script` on a thread of its own.
final class ScriptedSocketServer: Sendable {
    /// One accepted connection.
    final class Connection: Sendable {
        let descriptor: Int32

        init(descriptor: Int32) {
            self.descriptor = descriptor
        }

        /// Reads one request head and its `Content-Length` body; `nil` once the client closed.
        func readRequest() -> (head: String, body: Data)? {
            var buffer = Data()
            while true {
                if let end = buffer.range(of: Data("\r\n\r\n".utf8)) {
                    let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                    let length =
                        head.split(separator: "\r\n").compactMap { line -> Int? in
                            let parts = line.split(separator: ":", maxSplits: 1)
                            guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                            return Int(parts[1].trimmingCharacters(in: .whitespaces))
                        }.first ?? 0
                    var body = Data(buffer[end.upperBound...])
                    while body.count < length {
                        guard let more = receive() else { return nil }
                        body += more
                    }
                    return (head, body)
                }
                guard let more = receive() else { return nil }
                buffer += more
            }
        }

        private func receive() -> Data? {
            var bytes = [UInt8](repeating: 0, count: 16 << 10)
            let count = recv(descriptor, &bytes, bytes.count, 0)
            return count > 0 ? Data(bytes[..<count]) : nil
        }

        /// Writes `text`; `false` once the client is gone.
        @discardableResult
        func write(_ text: String) -> Bool {
            write(Data(text.utf8))
        }

        /// Writes `data`; `false` once the client is gone.
        @discardableResult
        func write(_ data: Data) -> Bool {
            data.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let sent = send(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset, Int32(MSG_NOSIGNAL))
                    guard sent > 0 else { return false }
                    offset += sent
                }
                return true
            }
        }

        /// Waits until the client closes the connection (or `limit` passes); whether it closed.
        func waitForClose(limit: Duration = .seconds(30)) -> Bool {
            var tv = timeval(tv_sec: Int(limit.components.seconds), tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            var byte: UInt8 = 0
            return recv(descriptor, &byte, 1, 0) == 0
        }
    }

    let port: UInt16
    private let listener: Int32
    private let accepted = Atomic(0)
    private let stopped = Atomic(false)

    /// How many connections were accepted so far.
    var connections: Int { accepted.load(ordering: .sequentiallyConsistent) }

    /// Listens on a free port and runs `script` for each connection, then closes it.
    init(_ script: @escaping @Sendable (Connection) -> Void) throws {
        let bound = try LoopbackPort.bind(listening: 16, reuseAddress: true)
        listener = bound.descriptor
        port = bound.port
        // NB: the thread holds the server until `stop()` ends its `accept`.
        let thread = Thread { [self] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0, !stopped.load(ordering: .sequentiallyConsistent) else {
                    if client >= 0 { close(client) }
                    return
                }
                accepted.add(1, ordering: .sequentiallyConsistent)
                let worker = Thread {
                    script(Connection(descriptor: client))
                    close(client)
                }
                worker.start()
            }
        }
        thread.start()
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }

    /// Stops accepting connections (those open finish their scripts).
    func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
