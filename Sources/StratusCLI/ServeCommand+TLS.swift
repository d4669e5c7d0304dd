import Foundation
import StratusHTTP
import StratusHTTPServer
import StratusLogging
import StratusServer

/// HTTPS and exposure: `--tls-certificate`, `--tls-key`, `--behind-proxy`, and the rule that a
/// server other machines can reach speaks TLS (itself or through a proxy) and knows its public URL.
extension ServeCommand {
    /// The flags this file reads.
    static let tlsFlags: Set<String> = ["tls-certificate", "tls-key", "behind-proxy"]

    /// Reads `--tls-certificate` and `--tls-key` (both or neither).
    ///
    /// - Throws: ``CLIError`` for one without the other, or for files that are not a PEM
    ///   certificate and an unencrypted PEM key.
    static func tlsIdentity(_ options: Options) throws -> TLSIdentity? {
        let certificate = options.string("tls-certificate", default: "")
        let key = options.string("tls-key", default: "")
        guard !certificate.isEmpty || !key.isEmpty else { return nil }
        guard !certificate.isEmpty, !key.isEmpty else {
            throw CLIError("--tls-certificate and --tls-key go together: give the PEM certificate chain and its private key")
        }
        do {
            return try TLSIdentity(certificateFile: URL(fileURLWithPath: certificate), keyFile: URL(fileURLWithPath: key))
        } catch {
            throw CLIError("--tls-certificate/--tls-key: \(error)")
        }
    }

    /// Refuses a server other machines can reach that would send passwords and tokens in the clear,
    /// or hand out URLs naming an address clients may not use.
    ///
    /// - Throws: ``CLIError`` when authentication is on, `host` is not loopback, and there is no TLS
    ///   (neither `--tls-certificate` nor `--behind-proxy`) or no `--public-url`.
    static func checkExposure(_ options: Options, host: String, tls: TLSIdentity?, authenticated: Bool) throws {
        guard authenticated, !Loopback.isLoopbackHost(host) else { return }
        guard tls != nil || options.flag("behind-proxy") else {
            throw CLIError(
                "serving '\(host)', which other machines can reach, without TLS would send passwords, session and API tokens in the clear: "
                    + "give --tls-certificate and --tls-key, or --behind-proxy when a reverse proxy terminates TLS (with --trusted-proxy naming it)"
            )
        }
        guard !options.string("public-url", default: "").isEmpty else {
            throw CLIError(
                "serving '\(host)' needs --public-url, the https:// URL clients use: sign-in, verification, asset and courier links name it"
            )
        }
    }

    /// Re-reads the certificate and key on SIGHUP and serves them to new connections.
    static func reloadOnHangUp(_ options: Options, server: HTTPServer, logger: Logger) -> ReloadSignal? {
        guard server.configuration.tls != nil else { return nil }
        return ReloadSignal {
            do {
                guard let identity = try tlsIdentity(options) else { return }
                try server.reloadTLS(identity)
            } catch {
                logger.error("SIGHUP: the certificate was not reloaded, the previous one is still served: \(error)")
            }
        }
    }
}
