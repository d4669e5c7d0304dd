import Foundation
import StratusTesting
import Testing

/// `stratus serve` and TLS (issue 18): a server other machines can reach never sends passwords
/// and tokens in the clear, HTTPS works end to end, and SIGHUP swaps the certificate live.
@Suite struct ServeTLSTests {
    static func curl(_ port: UInt16, ca: URL) async throws -> SpawnedCommand.Result {
        try await SpawnedCommand.run("/usr/bin/curl", ["-sS", "--max-time", "20", "--cacert", ca.path, "https://127.0.0.1:\(port)/health"])
    }

    @Test func aReachableAuthenticatedServerWithoutTLSIsRefused() async throws {
        let plain = try await WebServeProcess.refusal(["--host", "0.0.0.0"])
        #expect(plain.status != 0)
        #expect(plain.errors.contains("--tls-certificate"), "\(plain.errors)")
        let proxied = try await WebServeProcess.refusal(["--host", "0.0.0.0", "--behind-proxy"])
        #expect(proxied.status != 0)
        #expect(proxied.errors.contains("--public-url"), "\(proxied.errors)")
        let halfPair = try await WebServeProcess.refusal(["--tls-certificate", "/nonexistent/cert.pem"])
        #expect(halfPair.status != 0)
        #expect(halfPair.errors.contains("go together"), "\(halfPair.errors)")
    }

    @Test func unreadableOrForeignFilesAreRefusedByName() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-serve-tls")
        defer { directory.remove() }
        let files = try await TestCertificate.make(in: directory.url, name: "bad")
        let missing = try await WebServeProcess.refusal(["--tls-certificate", files.certificate.path, "--tls-key", directory.path("none.key")])
        #expect(missing.status != 0)
        #expect(missing.errors.contains("none.key"), "\(missing.errors)")
        let swapped = try await WebServeProcess.refusal(["--tls-certificate", files.key.path, "--tls-key", files.certificate.path])
        #expect(swapped.status != 0)
        #expect(swapped.errors.contains("no PEM certificate"), "\(swapped.errors)")
    }

    /// HTTPS end to end on the executable; SIGHUP after the files were replaced serves the new
    /// certificate to new connections while a kept-alive one carries on; a broken replacement is
    /// refused and the served certificate stays.
    @Test func servesHTTPSAndReloadsOnHangUp() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-serve-tls")
        defer { directory.remove() }
        let first = try await TestCertificate.make(in: directory.url, name: "first")
        let second = try await TestCertificate.make(in: directory.url, name: "second")
        let served = ServedCertificate(in: directory.url)
        func install(_ files: TestCertificate.Files) throws { try served.install(files) }
        try install(first)
        try await WebServeProcess.with(["--tls-certificate", served.certificate.path, "--tls-key", served.key.path]) { server in
            let health = try await Self.curl(server.port, ca: first.certificate)
            #expect(health.status == 0, "\(health.errorOutput)")
            let probe = try TLSProbe.start(port: server.port, ca: first.certificate, later: [first.certificate, second.certificate], scratch: directory.url)
            #expect(await eventually(timeout: .seconds(30)) { probe.firstRequestDone() })
            try install(second)
            server.signal(SIGHUP)
            // NB: the notice is below the child's log level; a new connection trusting only the second certificate tells.
            #expect(try await eventually(timeout: .seconds(20)) { try await Self.curl(server.port, ca: second.certificate).status == 0 })
            let report = try await probe.proceed()
            #expect(report.lines == ["keep 200 first", "same 200 first", "fresh 200 second"])

            try Data("not a key".utf8).write(to: served.key)
            server.signal(SIGHUP)
            #expect(await eventually(timeout: .seconds(30)) { server.log.contains("the certificate was not reloaded") })
            let still = try await Self.curl(server.port, ca: second.certificate)
            #expect(still.status == 0, "the second certificate must still be served: \(still.errorOutput)")
        }
    }
}
