import Foundation
import StratusHTTP
import StratusHTTPServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 5: one client exhausted the server — thousands of half-open connections from one
    /// address made `/health` time out for everyone, and uploads with bogus tickets were read
    /// whole into memory (RSS 50 → 349 MiB for eight) before the ticket was looked at.
    @Suite("05 connection and memory exhaustion")
    struct ConnectionExhaustionAttacks {
        static func healthServer(perAddress: Int, idleTimeout: Int) throws -> TestHTTPServer {
            var router = Router()
            router.immediate(.get, "/health") { _ in .json(bytes: Data(#"{"status":"ok"}"#.utf8)) }
            return try TestHTTPServer(responder: router) {
                $0.perAddressConnectionLimit = perAddress
                $0.connectionTimeout = idleTimeout
            }
        }

        static let health = Data("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        /// The start of a head that never ends: a half-open request.
        static let halfHead = Data("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8)

        static func health(port: UInt16, from address: String) async throws -> Int? {
            let socket = try LoopbackSocket(port: port, from: address, timeout: 20)
            defer { socket.close() }
            try await socket.send(Self.health)
            return try await socket.receiveUntilClosed().status
        }

        @Test func aFloodOfHalfOpenConnectionsFromOneAddressIsCappedWhileOthersAreServed() async throws {
            // Idle connections are kept 10 minutes here: only the per-address limit may refuse one.
            let server = try Self.healthServer(perAddress: 8, idleTimeout: 600)
            let flood = try (0..<40).map { _ in try LoopbackSocket(port: server.port, timeout: 20, sending: Self.halfHead) }
            // Another client (127.0.0.2 is another address, still loopback) is served while the flood holds.
            let other = try await Self.health(port: server.port, from: "127.0.0.2")
            let flooder = try await Self.health(port: server.port, from: "127.0.0.1")
            // Each flood connection finishes its head now: only those the server kept can answer.
            let answered = try await withThrowingTaskGroup(of: Int?.self) { group in
                for socket in flood {
                    group.addTask {
                        try await socket.send(Data("Connection: close\r\n\r\n".utf8))
                        return try await socket.receiveUntilClosed().status
                    }
                }
                return try await group.reduce(into: 0) { count, status in count += status == 200 ? 1 : 0 }
            }
            flood.forEach { $0.close() }
            await server.stop()
            #expect(other == 200)
            #expect(flooder == nil, "a connection over the per-address limit was served")
            #expect(answered == 8)
        }

        @Test func idleConnectionsAreTimedOutAndTheAddressIsServedAgain() async throws {
            // Idle for more than 5 s is closed: long enough for the check below under load, short for a test.
            let server = try Self.healthServer(perAddress: 4, idleTimeout: 5)
            let opened = ContinuousClock.now
            let idle = try (0..<4).map { _ in try LoopbackSocket(port: server.port, timeout: 30, sending: Self.halfHead) }
            let whileHeld = try await Self.health(port: server.port, from: "127.0.0.1")
            // On a loaded machine the check itself may come after the idle sockets' 5 s ran out.
            let heldLongEnough = ContinuousClock.now - opened < .seconds(4)
            var closed = 0
            for socket in idle where await socket.isClosedByServer() { closed += 1 }
            let afterwards = try await Self.health(port: server.port, from: "127.0.0.1")
            idle.forEach { $0.close() }
            await server.stop()
            #expect(whileHeld == nil || !heldLongEnough, "a fifth connection was served while four idle ones held the address's slots")
            #expect(closed == 4, "idle connections were not closed by the server")
            #expect(afterwards == 200)
        }

        @Test func aBogusUploadTicketIsRefusedBeforeTheBodyIsRead() async throws {
            let server = try await TestCloudKitServer.start()
            let socket = try LoopbackSocket(port: server.http.port, timeout: 10)
            let head = "POST /assets/upload/bogus.ticket HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(40 << 20)\r\n\r\n"
            // Of 40 MiB declared, 64 KiB is sent; the answer must come without the rest.
            try await socket.send(Data(head.utf8) + Data(repeating: 0x41, count: 64 << 10))
            let reply = try await socket.receiveUntilClosed()
            socket.close()
            await server.stop()
            #expect(reply.status == 403)
            #expect(String(decoding: reply.body, as: UTF8.self).contains("ACCESS_DENIED"))
        }

        /// Upload paths (`/assets/upload/…`) for `count` fields from an open-mode server.
        static func uploadPaths(port: UInt16, count: Int) async throws -> [String] {
            let tokens = (0..<count).map { #"{"recordType":"Note","fieldName":"f\#($0)"}"# }.joined(separator: ",")
            let body = #"{"tokens":[\#(tokens)]}"#
            let path = "/database/1/\(TransportAttackServer.container)/development/private/assets/upload"
            let reply = try await RawHTTPConnection.exchange(
                port: port, "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            )
            let response = try WireCoding.decode(AssetsUpload.Response.self, from: Data(reply.body))
            return response.tokens.compactMap { URL(string: $0.url)?.path }
        }

        static func upload(port: UInt16, path: String, size: Int) async throws -> Int? {
            let head = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: \(size)\r\n\r\n"
            return try await RawHTTPConnection.exchange(port: port, bytes: Data(head.utf8) + Data(repeating: 0x5a, count: size), timeout: 60).status
        }

        @Test func concurrentLargeUploadsKeepTheServersMemoryBounded() async throws {
            let size = 24 << 20
            let (statuses, growth) = try await TransportAttackServer.with(["--open", "--asset-limit-mb", "64"]) { server in
                let paths = try await Self.uploadPaths(port: server.port, count: 8)
                let before = try server.peakResidentBytes()
                // Eight bogus tickets with whole bodies (the attack as reported), and eight real uploads.
                let statuses = try await withThrowingTaskGroup(of: Int?.self) { group in
                    for index in 0..<8 {
                        group.addTask { try await Self.upload(port: server.port, path: "/assets/upload/bogus\(index)", size: size) }
                    }
                    for path in paths { group.addTask { try await Self.upload(port: server.port, path: path, size: size) } }
                    return try await group.reduce(into: [Int?]()) { $0.append($1) }
                }
                return (statuses, try server.peakResidentBytes() - before)
            }
            #expect(statuses.filter { $0 == 403 }.count == 8)
            #expect(statuses.filter { $0 == 200 }.count == 8)
            #expect(growth < 64 << 20, "peak resident memory grew by \(growth >> 20) MiB for 16 uploads of 24 MiB")
        }
    }
}
