import Foundation
import StratusHTTP
import StratusMetrics
import StratusServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 17 (transport and asset parts): `/metrics` was open to anyone, and an upload URL
    /// could be used again and again for 15 minutes, with no quota check.
    @Suite("17 metrics and upload tickets")
    struct MetricsAndTicketAttacks {
        static func get(_ path: String, port: UInt16, headers: String = "") async throws -> RawHTTPConnection.Reply {
            try await RawHTTPConnection.exchange(port: port, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\(headers)\r\n")
        }

        @Test func metricsNeedTheTokenFromEveryAddressOnceOneIsSet() async throws {
            let (none, wrong, right) = try await TransportAttackServer.with(["--open", "--metrics-token", "scrape-secret-1234"]) { server in
                (
                    try await Self.get("/metrics", port: server.port),
                    try await Self.get("/metrics", port: server.port, headers: "Authorization: Bearer scrape-secret-1235\r\n"),
                    try await Self.get("/metrics", port: server.port, headers: "Authorization: Bearer scrape-secret-1234\r\n")
                )
            }
            #expect(none.status == 401)
            #expect(wrong.status == 401)
            #expect(right.status == 200)
            #expect(String(decoding: right.body, as: UTF8.self).contains("stratus_http_responses_total"))
        }

        @Test func metricsAreServedOnlyToLoopbackWithoutAToken() async throws {
            var router = Router()
            MetricsEndpoint.register(on: &router, registry: MetricsRegistry(), access: MetricsAccess())
            let server = try TestHTTPServer(responder: router)
            let loopback = try await Self.get("/metrics", port: server.port)
            await server.stop()
            // Every test client is on loopback, so the remote client is a request as the transport would hand it over.
            var remote = HTTPRequest(method: .get, path: "/metrics")
            remote.remoteAddress = "203.0.113.9"
            guard case .now(let refused) = router.respond(to: remote) else {
                Issue.record("/metrics is an immediate route but parked")
                return
            }
            #expect(loopback.status == 200)
            #expect(refused.status.code == 403)
            #expect(!MetricsAccess.isLoopback("::ffff:203.0.113.9") && MetricsAccess.isLoopback("::ffff:127.0.0.1"))
        }

        static func uploadURL(_ server: TestCloudKitServer) async throws -> URL {
            let request = AssetsUpload.Request(tokens: [AssetsUpload.Token(recordName: "p1", recordType: "Photo", fieldName: "image")])
            let text = try await server.send("assets/upload", request, as: AssetsUpload.Response.self).tokens[0].url
            return try #require(URL(string: text))
        }

        static func post(_ size: Int, to url: URL, port: UInt16) async throws -> RawHTTPConnection.Reply {
            let head = "POST \(url.path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: \(size)\r\n\r\n"
            return try await RawHTTPConnection.exchange(port: port, bytes: Data(head.utf8) + Data(repeating: 0x33, count: size))
        }

        @Test(arguments: RecordStoreBackend.allCases) func anUploadURLWorksOnce(_ backend: RecordStoreBackend) async throws {
            let server = try await TestCloudKitServer.start(backend: backend)
            let url = try await Self.uploadURL(server)
            let first = try await Self.post(1000, to: url, port: server.http.port)
            let again = try await Self.post(2000, to: url, port: server.http.port)
            let other = try await Self.post(2000, to: try await Self.uploadURL(server), port: server.http.port)
            await server.stop()
            #expect(first.status == 200)
            #expect(again.status == 403)
            #expect(String(decoding: again.body, as: UTF8.self).contains("used already"))
            #expect(other.status == 200)
        }

        @Test(arguments: RecordStoreBackend.allCases) func anUploadURLHoldsNoMoreThanTheQuotaHasRoomFor(_ backend: RecordStoreBackend) async throws {
            let server = try await TestCloudKitServer.start(backend: backend) { $0.quotas.defaults.privateBytesPerUser = 4096 }
            let url = try await Self.uploadURL(server)
            let over = try await Self.post(8192, to: url, port: server.http.port)
            let within = try await Self.post(4000, to: url, port: server.http.port)
            await server.stop()
            #expect(over.status == 413)
            #expect(String(decoding: over.body, as: UTF8.self).contains("QUOTA_EXCEEDED"))
            // The refused upload did not spend the URL.
            #expect(within.status == 200)
        }

        @Test func anUploadURLExpiresAfterItsConfiguredLifetime() async throws {
            let server = try await TestCloudKitServer.start { $0.assets.uploadURLLifetime = 60_000 }
            let url = try await Self.uploadURL(server)
            server.advanceClock(by: .seconds(61))
            let late = try await Self.post(100, to: url, port: server.http.port)
            await server.stop()
            #expect(late.status == 403)
            #expect(String(decoding: late.body, as: UTF8.self).contains("expired"))
        }
    }
}
