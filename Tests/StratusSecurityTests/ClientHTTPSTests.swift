import Foundation
import StratusTesting
import Testing

/// The SDK (its Linux transport, libcurl) over HTTPS to `stratus serve --tls-…` (issue 18): a client that trusts
/// the server's CA talks to it, one that trusts another CA is refused, and a long-poll parked
/// before a SIGHUP certificate rotation still delivers its notification after it.
///
/// The SDK on Linux trusts what libcurl's CA bundle holds (the `stratus` commands give no CA of
/// their own; `CurlTransport.Configuration.trustedCAFile` adds one), so each SDK client — the `stratus records` and
/// `stratus watch` commands, which are the SDK — runs in a mount namespace of its own
/// (`unshare -m`) where the bundle file is replaced by the CAs the test chooses. The suite is
/// skipped where namespaces cannot be made.
@Suite(.enabled(if: MountNamespace.isAvailable)) struct ClientHTTPSTests {
    static let container = "iCloud.com.example.Secure"

    /// `stratus <arguments>` as an SDK client trusting only `authorities`.
    static func client(_ arguments: [String], trusting authorities: [URL], in scratch: TemporaryDirectory) throws -> [String] {
        let bundle = scratch.path("bundle-\(UUID().uuidString).pem")
        let pems = try authorities.map { try String(contentsOf: $0, encoding: .utf8) }
        try pems.joined(separator: "\n").write(toFile: bundle, atomically: true, encoding: .utf8)
        let stratus = try SpawnedCommand.builtExecutable("stratus")
        return ["-m", "/bin/sh", "-c", #"mount --bind "$0" /etc/ssl/certs/ca-certificates.crt && exec "$@""#, bundle, stratus] + arguments
    }

    static func run(_ arguments: [String], trusting authorities: [URL], in scratch: TemporaryDirectory) async throws -> SpawnedCommand.Result {
        try await SpawnedCommand.run(
            "/usr/bin/unshare", try client(arguments, trusting: authorities, in: scratch), environment: ProcessInfo.processInfo.environment)
    }

    @Test func theSDKTrustsTheServersCARefusesAnotherAndKeepsALongPollAcrossARotation() async throws {
        let scratch = try TemporaryDirectory(prefix: "stratus-sdk-https")
        defer { scratch.remove() }
        let first = try await TestCertificate.make(in: scratch.url, name: "first")
        let second = try await TestCertificate.make(in: scratch.url, name: "second")
        let stranger = try await TestCertificate.make(in: scratch.url, name: "stranger")
        let served = ServedCertificate(in: scratch.url)
        func install(_ files: TestCertificate.Files) throws { try served.install(files) }
        try install(first)
        let serve = ["--open", "--tls-certificate", served.certificate.path, "--tls-key", served.key.path, "--log-level", "info"]
        try await WebServeProcess.with(serve) { server in
            #expect(try await WebServeProcess.stratus(["container", "create", Self.container], dataDirectory: server.dataDirectory).status == 0)
            let common = ["--server", "https://127.0.0.1:\(server.port)", "--container", Self.container]
            let saved = try await Self.run(["records", "save", "Note", "n1", "title=over TLS"] + common, trusting: [first.certificate], in: scratch)
            #expect(saved.status == 0 && saved.output.contains("over TLS"), "\(saved.output)\(saved.errorOutput)")
            let read = try await Self.run(["records", "get", "n1"] + common, trusting: [first.certificate], in: scratch)
            #expect(read.status == 0 && read.output.contains("over TLS"), "\(read.errorOutput)")
            let refused = try await Self.run(["records", "get", "n1"] + common, trusting: [stranger.certificate], in: scratch)
            #expect(refused.status != 0 && !refused.output.contains("over TLS"), "a client that trusts another CA must be refused: \(refused.output)")

            // A watcher trusting only the first certificate parks a long-poll; after the rotation
            // a new connection from it would fail, so its notification can only come on that poll.
            let watcher = try SpawnedCommand.start(
                "/usr/bin/unshare",
                try Self.client(["watch", "--subscribe", "query:Note", "--count", "1"] + common, trusting: [first.certificate], in: scratch),
                environment: ProcessInfo.processInfo.environment, standardOutput: scratch.path("watch.out"), standardError: scratch.path("watch.err"))
            defer { watcher.signal(SIGKILL) }
            // The watcher's long-poll follows its token registration at once (the server logs a request
            // when it ends, so the parked poll itself is not in the log yet).
            let parked = await eventually(timeout: .seconds(30)) { server.log.contains("/tokens/register") }
            #expect(parked, "the watcher never got to its long-poll: \((try? String(contentsOfFile: scratch.path("watch.err"), encoding: .utf8)) ?? "")")
            try await Task.sleep(for: .seconds(1))
            try install(second)
            server.signal(SIGHUP)
            let rotated = try await eventually(timeout: .seconds(20)) {
                try await Self.run(["records", "get", "n1"] + common, trusting: [second.certificate], in: scratch).status == 0
            }
            #expect(rotated, "new connections must be shown the second certificate")
            let trigger = try await Self.run(
                ["records", "save", "Note", "n2", "title=after the rotation"] + common, trusting: [second.certificate], in: scratch)
            #expect(trigger.status == 0, "\(trigger.errorOutput)")
            let exited = await eventually(timeout: .seconds(25)) { !watcher.isRunning }
            let output = (try? String(contentsOfFile: scratch.path("watch.out"), encoding: .utf8)) ?? ""
            let errors = (try? String(contentsOfFile: scratch.path("watch.err"), encoding: .utf8)) ?? ""
            let status = exited ? try await watcher.exitStatus() : -1
            #expect(status == 0, "\(errors)")
            #expect(output.contains("record=n2"), "the parked long-poll must deliver the notification: \(output) \(errors)")
        }
    }
}

/// Whether this machine lets the tests make a mount namespace (`unshare -m`, root or user namespaces).
enum MountNamespace {
    static let isAvailable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else { return false }
        let result = try? SpawnedCommand.runBlocking("/usr/bin/unshare", ["-m", "/bin/sh", "-c", "mount --bind /dev/null /dev/null"])
        return result?.status == 0
    }()
}
