public import Foundation

/// Self-signed certificates for loopback HTTPS tests, made with the `openssl` command.
///
/// ```swift
/// import StratusHTTPServer
///
/// let identity = try await TestCertificate.make(in: directory.url, name: "first")
/// var configuration = HTTPServerConfiguration()
/// configuration.tls = try TLSIdentity(certificateFile: identity.certificate, keyFile: identity.key)
/// ```
public enum TestCertificate {
    /// A certificate and its key, as files.
    public struct Files: Sendable {
        /// The PEM certificate, valid for `127.0.0.1` and `localhost`; it is its own CA.
        public var certificate: URL
        /// The PEM private key (P-256, unencrypted).
        public var key: URL
    }

    /// Makes a self-signed P-256 certificate named `name` in `directory`, valid two days.
    public static func make(in directory: URL, name: String) async throws -> Files {
        let files = Files(
            certificate: directory.appendingPathComponent("\(name).crt"), key: directory.appendingPathComponent("\(name).key")
        )
        let result = try await SpawnedCommand.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=\(name)", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout", files.key.path, "-out", files.certificate.path,
            ]
        )
        guard result.status == 0 else {
            throw SpawnedCommand.Failure(description: "openssl req failed (\(result.status)): \(result.errorOutput)")
        }
        return files
    }
}

/// An HTTPS client for tests, in Python's standard library (URLSession on Linux cannot trust a
/// test CA): requests over one kept-alive connection, and what each new connection was shown.
public enum TLSProbe {
    /// What the probe saw: one entry per step, as `"<step> <status or error> <certificate CN>"`.
    public struct Report: Sendable {
        /// The lines the probe printed.
        public var lines: [String]
    }

    /// The probe's program: `python3 -c PROGRAM port ca-file go-file` requests `/health` on a
    /// kept-alive connection, prints `keep <status> <CN>`, waits for `go-file` to exist, requests
    /// again on the same connection (`same …`), then on a new connection (`fresh …`).
    static let program = #"""
        import http.client, os, ssl, sys, time
        port, ca, go = int(sys.argv[1]), sys.argv[2], sys.argv[3]
        def connect(cafile):
            context = ssl.create_default_context(cafile=cafile)
            c = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=30)
            c.connect()
            return c
        def name(c):
            subject = dict(x[0] for x in c.sock.getpeercert()["subject"])
            return subject.get("commonName", "?")
        def get(label, c):
            try:
                c.request("GET", "/health"); r = c.getresponse(); r.read()
                print(label, r.status, name(c), flush=True)
            except Exception as e:
                print(label, "error", type(e).__name__, flush=True)
        kept = connect(ca)
        get("keep", kept)
        deadline = time.time() + 60
        while not os.path.exists(go) and time.time() < deadline:
            time.sleep(0.02)
        get("same", kept)
        bundle = go + ".bundle"
        with open(bundle, "w") as out:
            for p in sys.argv[4:] or [ca]:
                out.write(open(p).read())
        try:
            get("fresh", connect(bundle))
        except Exception as e:
            print("fresh", "error", type(e).__name__, flush=True)
        """#

    /// A running probe.
    public struct Running: Sendable {
        let process: SpawnedProcess
        let output: String
        let go: URL

        /// Whether the probe has made its first request (`keep …` printed).
        public func firstRequestDone() -> Bool {
            ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("keep ")
        }

        /// Lets the probe go on to its second request and its new connection, and returns what it saw.
        public func proceed() async throws -> Report {
            _ = FileManager.default.createFile(atPath: go.path, contents: Data())
            _ = try await process.exitStatus()
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            return Report(lines: text.split(separator: "\n").map(String.init))
        }
    }

    /// Starts the probe against `127.0.0.1:port`, trusting `ca`; the new connection trusts `later`
    /// (all of them) when given, else `ca`.
    public static func start(port: UInt16, ca: URL, later: [URL] = [], scratch: URL) throws -> Running {
        let output = scratch.appendingPathComponent("probe-\(UUID().uuidString).out").path
        let go = scratch.appendingPathComponent("probe-\(UUID().uuidString).go")
        let process = try SpawnedCommand.start(
            "/usr/bin/env", ["python3", "-c", program, String(port), ca.path, go.path] + later.map(\.path),
            environment: ProcessInfo.processInfo.environment, standardOutput: output, standardError: output + ".err"
        )
        return Running(process: process, output: output, go: go)
    }
}
