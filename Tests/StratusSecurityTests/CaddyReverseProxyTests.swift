import Foundation
import StratusTesting
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The shipped Caddyfile (Deploy/caddy/Caddyfile), adapted only to a loopback port and plain
/// HTTP, in front of `stratus serve --behind-proxy --trusted-proxy 127.0.0.1`: the same records
/// tour as ``ReverseProxyTests`` passes through it, and the server sees each request coming from
/// the client's own address, not Caddy's and not one the client forged (issue 18).
/// `Scripts/test-reverse-proxy.sh` installs Debian's caddy and runs it; without caddy the suite
/// is skipped, unless `STRATUS_REQUIRE_CADDY=1`.
@Suite(.enabled(if: Caddy.isEnabled)) struct CaddyReverseProxyTests {
    /// The shipped Caddyfile with its site address made `http://127.0.0.1:port` (bound to loopback
    /// only), its upstream `upstream`, and global options that keep Caddy's admin endpoint,
    /// certificates and storage out of the picture.
    static func adaptedCaddyfile(upstream: UInt16, port: UInt16, storage: String) throws -> String {
        var site = try String(contentsOf: ReverseProxyTests.repository.appendingPathComponent("Deploy/caddy/Caddyfile"), encoding: .utf8)
        let replacements = [
            ("cloud.example.com {", "http://127.0.0.1:\(port) {\n\tbind 127.0.0.1\n"),
            ("reverse_proxy 127.0.0.1:8420 {", "reverse_proxy 127.0.0.1:\(upstream) {"),
        ]
        for (old, new) in replacements {
            #expect(site.contains(old), "Deploy/caddy/Caddyfile no longer has '\(old)'; adapt this test to it")
            site = site.replacingOccurrences(of: old, with: new)
        }
        let global = "{\n\tadmin off\n\tauto_https off\n\tstorage file_system \(storage)\n}\n"
        return global + site
    }

    /// Starts caddy with `caddyfile` in `directory` (its home, data and config there too).
    static func startCaddy(_ caddyfile: String, in directory: TemporaryDirectory, port: UInt16) async throws -> SpawnedProcess {
        let root = directory.url.path
        try caddyfile.write(toFile: root + "/Caddyfile", atomically: true, encoding: .utf8)
        let process = try SpawnedCommand.start(
            Caddy.path, ["run", "--config", root + "/Caddyfile", "--adapter", "caddyfile"],
            environment: ["HOME": root, "XDG_DATA_HOME": root, "XDG_CONFIG_HOME": root],
            standardOutput: root + "/stdout", standardError: root + "/stderr")
        let listening = await eventually(timeout: .seconds(30)) {
            (try? await RawHTTPConnection.exchange(port: port, "GET /health HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", timeout: 5))?.status == 200
        }
        let errors = (try? String(contentsOfFile: root + "/stderr", encoding: .utf8)) ?? ""
        #expect(listening, "caddy did not start: \(errors.suffix(2000))")
        return process
    }

    @Test func aRecordsTourThroughTheShippedCaddyfileSeesTheClientsAddress() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-caddy")
        defer { scratch.remove() }
        let port = try ReverseProxyTests.freePort()
        try await ReverseProxyTests.withProxiedServer(publicPort: port) { server, path in
            let caddyfile = try Self.adaptedCaddyfile(upstream: server.port, port: port, storage: scratch.url.path + "/storage")
            let caddy = try await Self.startCaddy(caddyfile, in: scratch, port: port)
            defer { caddy.signal(SIGKILL) }
            let tour = ProxiedTour(port: port, path: path)
            try await tour.run()
            caddy.signal(SIGTERM)
            _ = try? await caddy.exitStatus()

            ReverseProxyTests.expectEveryRequestCameFromTheClient(serverLog: server.log, atLeast: tour.requestCount)
        }
    }
}

/// Debian's caddy, when installed (or required).
enum Caddy {
    static let path = "/usr/bin/caddy"
    static var isEnabled: Bool {
        FileManager.default.isExecutableFile(atPath: path) || ProcessInfo.processInfo.environment["STRATUS_REQUIRE_CADDY"] == "1"
    }
}
