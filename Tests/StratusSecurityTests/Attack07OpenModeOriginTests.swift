import Foundation
import StratusHTTP
import StratusServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 7: an open-mode server (no credentials, every request is its one user) reflected every
    /// `Origin` in CORS and answered any `Host`, so any web page the developer visited — directly,
    /// or by DNS rebinding its own name to 127.0.0.1 — read and wrote their data; and `--open
    /// --host 0.0.0.0` only warned, serving the whole network.
    @Suite("07 open mode serves any web page") struct OpenModeOriginAttacks {
        static let container = "iCloud.com.example.A07"
        static let zonesList = "/database/1/\(container)/development/private/zones/list"

        static func get(_ server: WebServeProcess, host: String, origin: String) async throws -> RawHTTPConnection.Reply {
            try await server.exchange("GET \(zonesList) HTTP/1.1\r\nHost: \(host)\r\nOrigin: \(origin)\r\nConnection: close\r\n\r\n")
        }

        static func allowedOrigin(_ reply: RawHTTPConnection.Reply) -> String? {
            reply.head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("access-control-allow-origin:") }
                .map { $0.drop { $0 != ":" }.dropFirst().trimmingCharacters(in: .whitespaces) }
        }

        @Test func aForeignPageGetsNoCORSGrantFromAnOpenServer() async throws {
            try await WebServeProcess.with(["--open"]) { server in
                #expect(try await WebServeProcess.stratus(["container", "create", Self.container], dataDirectory: server.dataDirectory).status == 0)
                let host = "127.0.0.1:\(server.port)"

                let foreign = try await Self.get(server, host: host, origin: "https://evil.example")
                #expect(foreign.status == 200)  // the request itself is answered (a browser sends it), but
                #expect(Self.allowedOrigin(foreign) == nil)  // the page may not read the answer
                let preflight = try await server.exchange(
                    "OPTIONS \(Self.zonesList) HTTP/1.1\r\nHost: \(host)\r\nOrigin: https://evil.example\r\n"
                        + "Access-Control-Request-Method: POST\r\nConnection: close\r\n\r\n")
                #expect(preflight.status == 403)  // so no write with a JSON body is ever sent
                #expect(Self.allowedOrigin(preflight) == nil)

                // The developer's own pages on loopback still work.
                for origin in ["http://localhost:5173", "http://127.0.0.1:3000", "http://[::1]:8080"] {
                    #expect(Self.allowedOrigin(try await Self.get(server, host: host, origin: origin)) == origin)
                }
            }
        }

        @Test func aDNSRebindingPageIsRefusedByHost() async throws {
            try await WebServeProcess.with(["--open"]) { server in
                #expect(try await WebServeProcess.stratus(["container", "create", Self.container], dataDirectory: server.dataDirectory).status == 0)
                // evil.example now resolves to 127.0.0.1: the page is same-origin with "the server", but says so in Host.
                let rebound = try await Self.get(server, host: "evil.example:\(server.port)", origin: "http://evil.example:\(server.port)")
                #expect(rebound.status == 403)
                #expect(String(decoding: rebound.body, as: UTF8.self).contains("not a loopback name"))
                #expect(!String(decoding: rebound.body, as: UTF8.self).contains("zones"))
                let plain = try await server.exchange("GET \(Self.zonesList) HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
                #expect(plain.status == 403)
                // Loopback names pass.
                for host in ["localhost:\(server.port)", "127.0.0.1:\(server.port)", "[::1]:\(server.port)", "app.localhost"] {
                    let reply = try await server.exchange("GET \(Self.zonesList) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
                    #expect(reply.status == 200, "\(host)")
                }
            }
        }

        @Test func theLibraryServiceInOpenModeRefusesForeignHostsToo() async throws {
            try await withWebAttackServer(open: true) { server in
                let path = TestCloudKitServer.path("zones/list", database: "private")
                let rebound = try await server.rawExchange("GET", path, host: "evil.example")
                #expect(rebound.status == 403)
                let local = try await server.rawExchange("GET", path, host: "127.0.0.1:\(server.http.port)")
                #expect(local.status == 200)
                // CORS: only loopback origins and the configured ones.
                #expect(server.service.isOriginAllowed("http://localhost:3000", for: HTTPRequest(method: .get, path: path)))
                #expect(!server.service.isOriginAllowed("https://evil.example", for: HTTPRequest(method: .get, path: path)))
                #expect(!server.service.isOriginAllowed("null", for: HTTPRequest(method: .get, path: path)))
                #expect(!server.service.isOriginAllowed("http://localhost.evil.example", for: HTTPRequest(method: .get, path: path)))
            }
        }

        @Test func openModeOnANonLoopbackAddressIsRefusedAtStart() async throws {
            for host in ["0.0.0.0", "::"] {
                let refused = try await WebServeProcess.refusal(["--open", "--host", host])
                #expect(refused.status != 0, "stratus serve --open --host \(host) started")
                #expect(refused.errors.contains("loopback address"), "\(refused.errors)")
            }
        }

        @Test func configuredOriginsAreTheOnlyOthersAllowed() async throws {
            try await WebServeProcess.with(["--open", "--origins", "http://devbox.test:3000"]) { server in
                let created = try await WebServeProcess.stratus(["container", "create", Self.container], dataDirectory: server.dataDirectory)
                #expect(created.status == 0)
                let host = "127.0.0.1:\(server.port)"
                let configured = try await Self.get(server, host: host, origin: "http://devbox.test:3000")
                #expect(Self.allowedOrigin(configured) == "http://devbox.test:3000")
                let other = try await Self.get(server, host: host, origin: "http://devbox.test:3001")
                #expect(Self.allowedOrigin(other) == nil)
            }
        }
    }
}
