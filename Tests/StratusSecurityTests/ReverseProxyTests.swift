import Foundation
import StratusTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The shipped nginx configuration (Deploy/nginx/stratus.conf), adapted only to loopback ports
/// and plain HTTP, in front of `stratus serve --behind-proxy --trusted-proxy 127.0.0.1`: a
/// records tour passes through it, and the server sees each request coming from the client's
/// own address — not nginx's, not one the client forged (issue 18). `Scripts/test-reverse-proxy.sh`
/// installs Debian's nginx and runs it; without nginx the suite is skipped, unless
/// `STRATUS_REQUIRE_NGINX=1`.
@Suite(.enabled(if: Nginx.isEnabled)) struct ReverseProxyTests {
    static let nginx = Nginx.path
    static let container = "iCloud.com.example.Proxied"
    /// The client's own address, and the one it pretends to be.
    static let client = "127.0.0.2"
    static let forged = "203.0.113.66"

    static var repository: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent() }

    /// A port nothing listens on now.
    static func freePort() throws -> UInt16 {
        let bound = try LoopbackPort.bind()
        close(bound.descriptor)
        return bound.port
    }

    /// The shipped site file with its ports, certificates and listen addresses made loopback and plain HTTP.
    static func adaptedSite(upstream: UInt16, port: UInt16, redirectPort: UInt16) throws -> String {
        var site = try String(contentsOf: repository.appendingPathComponent("Deploy/nginx/stratus.conf"), encoding: .utf8)
        let replacements = [
            ("server 127.0.0.1:8420;", "server 127.0.0.1:\(upstream);"),
            ("listen 80;\n    listen [::]:80;", "listen 127.0.0.1:\(redirectPort);"),
            ("listen 443 ssl http2;\n    listen [::]:443 ssl http2;", "listen 127.0.0.1:\(port);"),
        ]
        for (old, new) in replacements {
            #expect(site.contains(old), "Deploy/nginx/stratus.conf no longer has '\(old)'; adapt this test to it")
            site = site.replacingOccurrences(of: old, with: new)
        }
        return site.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("    ssl_") }.joined(separator: "\n")
    }

    /// Starts nginx with the adapted site in `directory`; stop it with SIGQUIT.
    static func startNginx(site: String, in directory: TemporaryDirectory, port: UInt16) async throws -> SpawnedProcess {
        let root = directory.url.path
        for folder in ["body", "proxy", "fastcgi", "uwsgi", "scgi"] {
            try FileManager.default.createDirectory(atPath: root + "/" + folder, withIntermediateDirectories: true)
        }
        try site.write(toFile: root + "/stratus.conf", atomically: true, encoding: .utf8)
        let main = """
            \(getuid() == 0 ? "user root;" : "")
            worker_processes 1;
            daemon off;
            pid \(root)/nginx.pid;
            error_log \(root)/error.log warn;
            events { worker_connections 128; }
            http {
                access_log \(root)/access.log;
                client_body_temp_path \(root)/body;
                proxy_temp_path \(root)/proxy;
                fastcgi_temp_path \(root)/fastcgi;
                uwsgi_temp_path \(root)/uwsgi;
                scgi_temp_path \(root)/scgi;
                include \(root)/stratus.conf;
            }
            """
        try main.write(toFile: root + "/nginx.conf", atomically: true, encoding: .utf8)
        let process = try SpawnedCommand.start(
            nginx, ["-p", root, "-e", root + "/error.log", "-c", root + "/nginx.conf"], environment: [:],
            standardOutput: root + "/stdout", standardError: root + "/stderr")
        let listening = await eventually(timeout: .seconds(30)) {
            (try? await RawHTTPConnection.exchange(port: port, "GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", timeout: 5))?.status != nil
        }
        let errors = (try? String(contentsOfFile: root + "/error.log", encoding: .utf8)) ?? ""
        #expect(listening, "nginx did not start: \(errors)")
        return process
    }

    /// One request through nginx from ``client``, with a forged `X-Forwarded-For`.
    static func send(
        _ port: UInt16, _ method: String, _ target: String, body: Data = Data(), contentType: String = "application/json"
    ) async throws -> RawHTTPConnection.Reply {
        var head = "\(method) \(target) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nX-Forwarded-For: \(forged)\r\n"
        if method == "POST" { head += "Content-Type: \(contentType)\r\nContent-Length: \(body.count)\r\n" }
        return try await RawHTTPConnection.exchange(port: port, bytes: Data((head + "\r\n").utf8) + body, from: client)
    }

    static func json(_ reply: RawHTTPConnection.Reply) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: reply.body)) as? [String: Any] ?? [:]
    }

    @Test func aRecordsTourThroughTheShippedNginxConfigurationSeesTheClientsAddress() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-nginx")
        defer { scratch.remove() }
        let port = try Self.freePort()
        let redirectPort = try Self.freePort()
        try await Self.withProxiedServer(publicPort: port) { server, path in
            let site = try Self.adaptedSite(upstream: server.port, port: port, redirectPort: redirectPort)
            let nginx = try await Self.startNginx(site: site, in: scratch, port: port)
            defer { nginx.signal(SIGKILL) }
            let tour = ProxiedTour(port: port, path: path)
            try await tour.run()
            let redirect = try await RawHTTPConnection.exchange(port: redirectPort, "GET /x HTTP/1.0\r\nHost: cloud.example.com\r\n\r\n")
            #expect(redirect.status == 301 && redirect.head.contains("Location: https://cloud.example.com/x"), "\(redirect.head)")
            nginx.signal(SIGQUIT)
            _ = try? await nginx.exitStatus()

            Self.expectEveryRequestCameFromTheClient(serverLog: server.log, atLeast: tour.requestCount)
        }
    }

    /// Every request in the server's access log but the proxy's start-up probes (GET /health from
    /// 127.0.0.1) names ``client`` — not the proxy's address, not the one the client forged.
    static func expectEveryRequestCameFromTheClient(serverLog: String, atLeast count: Int) {
        let accessLines = serverLog.split(separator: "\n").filter { $0.contains("\"request-id\"") && !$0.contains("/health") }
        #expect(accessLines.count >= count, "\(serverLog.suffix(2000))")
        for line in accessLines {
            #expect(line.contains("\"client\":\"\(client)\""), "the server must see the client's own address: \(line)")
        }
    }

    /// The records tour's server: `stratus serve --behind-proxy` with a container, an API token and
    /// a signed-in user; `body` gets the server and the tour's path for an operation.
    static func withProxiedServer(publicPort: UInt16, _ body: (WebServeProcess, @escaping @Sendable (String) -> String) async throws -> Void) async throws {
        let serve = [
            "--behind-proxy", "--trusted-proxy", "127.0.0.1", "--public-url", "http://127.0.0.1:\(publicPort)", "--log-level", "info", "--log-format", "json",
        ]
        try await WebServeProcess.with(serve) { server in
            let data = server.dataDirectory
            #expect(try await WebServeProcess.stratus(["container", "create", container], dataDirectory: data).status == 0)
            let apiToken = try await WebServeProcess.stratus(["token", "create", container], dataDirectory: data).output.trimmingCharacters(
                in: .whitespacesAndNewlines)
            #expect(try await WebServeProcess.stratus(["user", "create", "tourist@example.com"], dataDirectory: data).status == 0)
            let webAuthToken = try await WebServeProcess.stratus(["user", "token", "tourist@example.com", container], dataDirectory: data)
                .output.trimmingCharacters(in: .whitespacesAndNewlines)
            let credentials = "?ckAPIToken=\(apiToken)&ckWebAuthToken=\(TestCloudKitServer.percentEncoded(webAuthToken))"
            try await body(server) { "/database/1/\(container)/development/private/\($0)\(credentials)" }
        }
    }
}

/// Debian's nginx, when installed (or required).
enum Nginx {
    static let path = "/usr/sbin/nginx"
    static var isEnabled: Bool {
        FileManager.default.isExecutableFile(atPath: path) || ProcessInfo.processInfo.environment["STRATUS_REQUIRE_NGINX"] == "1"
    }
}

/// The records tour: zone, records, query, lookup, changes, an asset up and down, a deletion —
/// every request and every URL the server hands out going through the proxy.
struct ProxiedTour {
    let port: UInt16
    let path: (String) -> String
    /// Requests the tour sends: nine database operations, an upload and a download.
    let requestCount = 11

    func post(_ operation: String, _ body: String) async throws -> [String: Any] {
        let reply = try await ReverseProxyTests.send(port, "POST", path(operation), body: Data(body.utf8))
        #expect(reply.status == 200, "\(operation): \(String(decoding: reply.raw, as: UTF8.self).prefix(1000))")
        return ReverseProxyTests.json(reply)
    }

    func run() async throws {
        let zone = #"{"zoneName":"Tour"}"#
        _ = try await post("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":\#(zone)}}]}"#)
        let ops = ["t1", "t2"].map { #"{"operationType":"create","record":{"recordName":"\#($0)","recordType":"Stop","fields":{"name":{"value":"\#($0)"}}}}"# }
        _ = try await post("records/modify", #"{"zoneID":\#(zone),"operations":[\#(ops.joined(separator: ","))]}"#)
        let queried = try await post("records/query", #"{"zoneID":\#(zone),"query":{"recordType":"Stop"}}"#)
        #expect((queried["records"] as? [[String: Any]])?.count == 2, "\(queried)")
        let changes = try await post("records/changes", #"{"zoneID":\#(zone)}"#)
        let token = try #require(changes["syncToken"] as? String)

        let tokens = try await post("assets/upload", #"{"zoneID":\#(zone),"tokens":[{"recordName":"t1","recordType":"Stop","fieldName":"photo"}]}"#)
        let uploadURL = try #require(URL(string: (tokens["tokens"] as? [[String: Any]])?.first?["url"] as? String ?? ""))
        #expect(uploadURL.port == Int(port), "the upload URL must name the public URL, through the proxy: \(uploadURL)")
        let bytes = Data((0..<30_000).map { UInt8(truncatingIfNeeded: $0 &* 11) })
        let uploaded = try await ReverseProxyTests.send(
            port, "POST", uploadURL.path + (uploadURL.query.map { "?" + $0 } ?? ""), body: bytes, contentType: "application/octet-stream")
        let receipt = try #require(ReverseProxyTests.json(uploaded)["singleFile"], "\(String(decoding: uploaded.raw, as: UTF8.self).prefix(500))")
        let asset = String(decoding: try JSONSerialization.data(withJSONObject: receipt), as: UTF8.self)
        _ = try await post(
            "records/modify",
            #"{"zoneID":\#(zone),"operations":[{"operationType":"forceUpdate","record":{"recordName":"t1","recordType":"Stop","fields":{"photo":{"value":\#(asset)}}}}]}"#
        )
        let lookup = try await post("records/lookup", #"{"zoneID":\#(zone),"records":[{"recordName":"t1"}]}"#)
        let field = ((lookup["records"] as? [[String: Any]])?.first?["fields"] as? [String: Any])?["photo"] as? [String: Any]
        let download = try #require(
            URL(string: ((field?["value"] as? [String: Any])?["downloadURL"] as? String ?? "").replacingOccurrences(of: "${f}", with: "photo.bin")))
        #expect(download.port == Int(port), "\(download)")
        let fetched = try await ReverseProxyTests.send(port, "GET", download.path + (download.query.map { "?" + $0 } ?? ""))
        #expect(fetched.status == 200 && fetched.body == bytes, "the asset must come back byte for byte through the proxy")

        _ = try await post("records/modify", #"{"zoneID":\#(zone),"operations":[{"operationType":"forceDelete","record":{"recordName":"t2"}}]}"#)
        let later = try await post("records/changes", #"{"zoneID":\#(zone),"syncToken":"\#(token)"}"#)
        let changed = (later["records"] as? [[String: Any]] ?? []).map { "\($0["recordName"] ?? "")\($0["deleted"] as? Bool == true ? " deleted" : "")" }
        #expect(Set(changed) == ["t1", "t2 deleted"], "\(later)")
    }
}
