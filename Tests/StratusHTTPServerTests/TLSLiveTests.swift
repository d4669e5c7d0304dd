import Foundation
import StratusHTTP
import StratusHTTPServer
import StratusTesting
import Testing

/// HTTPS on a real libmicrohttpd server (GnuTLS) on 127.0.0.1, checked by outside clients:
/// `curl`, `openssl s_client` and Python's `ssl`.
@Suite struct TLSLiveTests {
    static func router() -> Router {
        var router = Router()
        router.immediate(.get, "/health") { request in .text("ok \(request.scheme)") }
        return router
    }

    static func scratch() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func server(_ files: TestCertificate.Files) throws -> TestHTTPServer {
        let identity = try TLSIdentity(certificateFile: files.certificate, keyFile: files.key)
        return try TestHTTPServer(responder: router()) { $0.tls = identity }
    }

    /// `curl --cacert` fetches over HTTPS; the request knows its scheme.
    static func curl(_ port: UInt16, ca: URL, extra: [String] = []) async throws -> SpawnedCommand.Result {
        try await SpawnedCommand.run(
            "/usr/bin/curl", ["-sS", "--max-time", "20", "--cacert", ca.path] + extra + ["https://127.0.0.1:\(port)/health"]
        )
    }

    @Test func servesHTTPSWithTheCertificateAndRefusesPlainHTTP() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try await TestCertificate.make(in: directory, name: "first")
        let server = try Self.server(files)
        let secure = try await Self.curl(server.port, ca: files.certificate)
        let plain = try await SpawnedCommand.run("/usr/bin/curl", ["-sS", "--max-time", "20", "http://127.0.0.1:\(server.port)/health"])
        await server.stop()
        #expect(secure.status == 0, "\(secure.errorOutput)")
        #expect(secure.output == "ok https")
        #expect(plain.output != "ok https" && plain.output != "ok http")
    }

    @Test func onlyTLS12AndNewerAreOffered() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try await TestCertificate.make(in: directory, name: "versions")
        let server = try Self.server(files)
        func handshake(_ version: String) async throws -> Int32 {
            try await SpawnedCommand.run(
                "/usr/bin/openssl",
                ["s_client", "-connect", "127.0.0.1:\(server.port)", version, "-CAfile", files.certificate.path, "-verify_return_error", "-brief"]
            ).status
        }
        let old = try await handshake("-tls1_1")
        let twelve = try await handshake("-tls1_2")
        let thirteen = try await handshake("-tls1_3")
        await server.stop()
        #expect(old != 0, "a TLS 1.1 handshake must fail")
        #expect(twelve == 0)
        #expect(thirteen == 0)
    }

    /// SIGHUP's work: the kept-alive connection goes on with the old certificate, a new connection
    /// gets the new one, and no connection is refused in between.
    @Test func reloadKeepsOpenConnectionsAndServesTheNewCertificate() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await TestCertificate.make(in: directory, name: "first")
        let second = try await TestCertificate.make(in: directory, name: "second")
        let server = try Self.server(first)
        let probe = try TLSProbe.start(port: server.port, ca: first.certificate, later: [first.certificate, second.certificate], scratch: directory)
        #expect(await eventually(timeout: .seconds(30)) { probe.firstRequestDone() })
        try server.server.reloadTLS(try TLSIdentity(certificateFile: second.certificate, keyFile: second.key))
        let report = try await probe.proceed()
        let afterwards = try await Self.curl(server.port, ca: second.certificate)
        let oldCA = try await Self.curl(server.port, ca: first.certificate)
        await server.stop()
        #expect(report.lines == ["keep 200 first", "same 200 first", "fresh 200 second"])
        #expect(afterwards.output == "ok https")
        #expect(oldCA.status != 0, "a new connection must no longer be shown the first certificate")
    }

    /// A key that does not belong to the certificate is refused; the server keeps serving the old one.
    @Test func aMismatchedReloadIsRefusedAndTheOldCertificateStays() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try await TestCertificate.make(in: directory, name: "first")
        let second = try await TestCertificate.make(in: directory, name: "second")
        let server = try Self.server(first)
        let mismatched = try TLSIdentity(certificateFile: second.certificate, keyFile: first.key)
        let error = #expect(throws: HTTPServerError.self) { try server.server.reloadTLS(mismatched) }
        let still = try await Self.curl(server.port, ca: first.certificate)
        await server.stop()
        #expect(error?.code == .invalidTLSIdentity)
        // libmicrohttpd's own reason is in the message: the only clue when a start fails for a cause the message cannot guess.
        #expect(error?.message.contains("libmicrohttpd said:") == true, "\(String(describing: error))")
        #expect(still.output == "ok https")
    }

    @Test func aPlainServerCannotReload() async throws {
        let directory = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let files = try await TestCertificate.make(in: directory, name: "plain")
        let server = try TestHTTPServer(responder: Self.router())
        let error = #expect(throws: HTTPServerError.self) {
            try server.server.reloadTLS(try TLSIdentity(certificateFile: files.certificate, keyFile: files.key))
        }
        await server.stop()
        #expect(error?.code == .notRunning)
    }
}

/// What ``TLSIdentity`` refuses before GnuTLS sees it.
@Suite struct TLSIdentityTests {
    @Test func refusesWhatIsNotPEMOrIsEncrypted() throws {
        let certificate = Data("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8)
        let key = Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8)
        #expect(throws: HTTPServerError.self) { try TLSIdentity(certificatePEM: Data("hello".utf8), keyPEM: key) }
        #expect(throws: HTTPServerError.self) { try TLSIdentity(certificatePEM: certificate, keyPEM: certificate) }
        let encrypted = Data("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n".utf8)
        let error = #expect(throws: HTTPServerError.self) { try TLSIdentity(certificatePEM: certificate, keyPEM: encrypted) }
        #expect(error?.message.contains("encrypted") == true)
        #expect(throws: Never.self) { try TLSIdentity(certificatePEM: certificate, keyPEM: key) }
    }

    @Test func namesAFileItCannotRead() {
        let missing = URL(fileURLWithPath: "/nonexistent/stratus.pem")
        let error = #expect(throws: HTTPServerError.self) { try TLSIdentity(certificateFile: missing, keyFile: missing) }
        #expect(error?.message.contains("/nonexistent/stratus.pem") == true)
    }
}
