import StratusConsole
import StratusLogging
import StratusMetrics
import StratusServer

/// The web console of `stratus serve` (Documentation/0022-console.md).
extension ServeCommand {
    /// The console over the server's own service and store (without accounts in open mode, where the
    /// private database is the one user's); its session cookie says `Secure` when
    /// the server serves TLS or a TLS-terminating proxy is in front (`--behind-proxy`).
    static func makeConsole(
        _ options: Options, service: CloudKitService, store: any RecordStore & AccountStore & ConsoleStore, configuration: ServiceConfiguration,
        metrics: MetricsRegistry, logger: Logger
    ) -> Console {
        var console = ConsoleConfiguration()
        console.secureCookies = !options.string("tls-certificate", default: "").isEmpty || options.flag("behind-proxy")
        console.loopbackOnly = options.flag("console-loopback-only")
        return Console(
            service: service, records: store, accounts: configuration.authentication.requiresAuthentication ? store : nil,
            console: store, serviceConfiguration: configuration, metrics: metrics, configuration: console, logger: logger
        )
    }
}
