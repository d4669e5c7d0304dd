import Foundation
import StratusHTTP
import StratusLogging
import StratusServer

/// The security flags of `stratus serve`: open mode and its limits, sign-up, trusted proxies.
extension ServeCommand {
    /// The flags this file reads.
    static let securityFlags: Set<String> = ["open", "origins", "no-signup", "verification-outbox", "trusted-proxy"]

    /// What the security flags chose, read before the data directory is opened (so a refused
    /// `--open` touches no data), applied to the service configuration later.
    struct SecurityChoices {
        var authentication = AuthenticationConfiguration()
        var trustedProxies = TrustedProxies()

        func apply(to configuration: inout ServiceConfiguration) {
            configuration.authentication = authentication
            configuration.trustedProxies = trustedProxies
        }
    }

    /// Reads `--open`, `--origins`, `--no-signup`, `--verification-outbox` and `--trusted-proxy`.
    ///
    /// - Throws: ``CLIError`` for `--open` on an address other machines can reach, for an origin or a
    ///   proxy that is not one, and for `--origins` without `--open`.
    static func securityChoices(_ options: Options, host: String) throws -> SecurityChoices {
        var configuration = SecurityChoices()
        let origins = options.list("origins")
        if options.flag("open") {
            guard Loopback.isLoopbackHost(host) else {
                throw CLIError(
                    "--open serves without authentication, so it may listen only on a loopback address (127.0.0.1 or ::1), not '\(host)': "
                        + "any machine that reaches the server would act as its one user. Drop --open to serve other machines with accounts and tokens."
                )
            }
            configuration.authentication = .openMode
            for origin in origins {
                guard let url = URL(string: origin), ["http", "https"].contains(url.scheme ?? ""), url.host != nil, url.path.isEmpty, url.query == nil
                else { throw CLIError("--origins: '\(origin)' is not an origin such as http://devbox.local:3000 (scheme, host and port only)") }
            }
            configuration.authentication.openModeOrigins = origins
        } else {
            configuration.authentication.requiresAuthentication = true
            guard origins.isEmpty else {
                throw CLIError(
                    "--origins applies to --open servers only; with authentication, each API token lists its origins (stratus token create --origins)")
            }
        }
        configuration.authentication.allowsSignUp = !options.flag("no-signup")
        let outbox = options.string("verification-outbox", default: "")
        if !outbox.isEmpty {
            configuration.authentication.verificationDelivery = .outbox(URL(fileURLWithPath: outbox).standardizedFileURL)
        }
        do {
            configuration.trustedProxies = try TrustedProxies(options.list("trusted-proxy"))
        } catch {
            throw CLIError("--trusted-proxy: \(error)")
        }
        return configuration
    }

    /// Says at start what an operator must know about the choices above.
    static func noteSecurity(_ options: Options, configuration: ServiceConfiguration, base: String, logger: Logger) {
        let authentication = configuration.authentication
        guard authentication.requiresAuthentication else {
            logger.warning("open mode: authentication is off and every request acts as one user; only loopback names and origins are served")
            return
        }
        if configuration.publicBaseURL == nil {
            logger.notice(
                "no --public-url: sign-in, verification, asset and courier URLs use the address each request reached (such as \(base)), never its Host header; set --public-url to the URL clients use"
            )
            if !configuration.trustedProxies.isEmpty {
                logger.warning("--trusted-proxy without --public-url: the URLs handed out name this server's own address, not the proxy's")
            }
        }
        guard authentication.allowsSignUp else { return }
        switch authentication.verificationDelivery {
        case .outbox(let url):
            logger.notice("sign-up is on (--no-signup turns it off): verification links are appended to \(url.path); deliver each to its address")
        default:
            logger.notice(
                "sign-up is on (--no-signup turns it off): verification links are logged at notice level; deliver each to its address, or set --verification-outbox"
            )
        }
    }
}
