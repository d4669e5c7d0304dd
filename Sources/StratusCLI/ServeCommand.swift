import Foundation
import StratusHTTP
import StratusHTTPServer
import StratusLogging
import StratusMetrics
import StratusServer

/// `stratus serve`: runs the server until SIGINT or SIGTERM.
enum ServeCommand {
    static let usage = """
        stratus serve [--host 127.0.0.1] [--port 8420] [--data-dir ./.stratus] [--database postgres://…] [--threads 4]
                      [--assets-directory DIR] [--log-level info] [--log-format text|json]
                      [--public-url https://stratus.example.com] [--trusted-proxy ADDRESS[,ADDRESS…]]
                      [--tls-certificate PEM --tls-key PEM | --behind-proxy] [--console-loopback-only]
                      [--backup-every 6h [--backup-keep 14] [--backup-directory DIR]]
                      [--no-signup] [--verification-outbox FILE] [--asset-limit-mb 50]
                      [--requests-per-second 40] [--client-requests-per-second 0]
                      [--public-db-mb 100] [--private-db-mb 1024] [--query-candidate-limit 10000] [--database-feed-wait 3]
                      [--open [--origins http://devbox.local:3000,…]]
                      [--max-connections 4096] [--max-connections-per-address 128] [--connection-timeout 30]
                      [--max-buffered-body-mb 256] [--unauthenticated-requests-per-second 10]
                      [--upload-url-lifetime 900] [--metrics-token TOKEN] [--connection-memory-kb 16]
                      [--sqlite-readers 2] [--sqlite-cache-mb 4] [--sqlite-reader-cache-mb 4] [--sqlite-mmap-mb 0]
                      [--max-subscriptions-per-user 200] [--max-push-tokens-per-user 100]
                      [--max-parked-polls-per-user 16] [--max-parked-polls 2000]
                      [--apns-endpoint https://host:port] [--apns-ca-file PEM] [--max-apns-tokens-per-user 20]

        Requests need credentials: an API token (`stratus token create`), plus a web auth
        token for a user (the server's /signin page or `stratus user token`), or a
        server-to-server signature (`stratus key add`).
        --open turns authentication off and every request acts as one user: for development
        on loopback only. It is refused unless --host is a loopback address; such a server
        answers only requests addressed to localhost, 127.0.0.1 or [::1], and only loopback
        browser origins (plus --origins) may read its responses.
        --public-url is the server's external base URL, used in sign-in and verification links,
        web-courier and asset URLs (default: the server's own address each request reached —
        never the request's Host header).
        --trusted-proxy names reverse proxies (addresses or networks such as 10.0.0.0/8; repeat
        the flag or separate with commas) whose X-Forwarded-For gives the client's address for
        sign-in throttles and per-address limits, and whose X-Forwarded-Proto gives the scheme.
        The header is ignored from anyone else.
        --tls-certificate and --tls-key serve HTTPS (TLS 1.2 and 1.3) with a PEM certificate
        chain and its unencrypted PEM key; SIGHUP re-reads both and serves them to new
        connections, open ones carry on. With authentication on, a --host other machines can
        reach is refused without TLS — these flags, or --behind-proxy when a reverse proxy
        terminates TLS — and without --public-url.
        --console-loopback-only keeps the web console (/console) to requests from loopback
        addresses (through a trusted proxy: the client's address it forwards); anyone else
        gets 404, as from a server without a console. Reach it through an SSH tunnel.
        --backup-every writes a `stratus backup` archive at that interval (90s, 30m, 6h, 1d) into
        --backup-directory (default: backups/ in the data directory), keeping the newest
        --backup-keep (14); with --database, run it on one node only.
        Sign-up: the sign-in page lets people create accounts; each sign-up sends a link to the
        address, and the account is made when it is followed. The server sends no mail: links
        are logged at notice level, or appended as JSON lines to --verification-outbox for a
        mailer to deliver. --no-signup turns sign-up off (`stratus user create` makes accounts).
        --requests-per-second limits each container (a burst of as many again is allowed;
        0 turns the limit off); --client-requests-per-second limits each client within a
        container — a signed-in user, an API token alone, a server-to-server key, or in open
        mode a client address — with the same burst rule (0, the default: no per-client limit);
        --public-db-mb and --private-db-mb are the record quota of
        each public database and the quota of each user's private database.
        --max-subscriptions-per-user caps each user's subscriptions per database (past it:
        QUOTA_EXCEEDED); --max-push-tokens-per-user caps each user's live web-courier tokens per
        container environment (QUOTA_EXCEEDED); --max-parked-polls-per-user and --max-parked-polls
        cap the courier long-polls parked at once per user (past it: 429 THROTTLED) and on this
        node (503 TRY_AGAIN_LATER); a new poll on a token replaces that token's parked one.
        APNs: pushes go to Apple's push service for containers given credentials with
        `stratus push apns set` (api.push.apple.com, or api.sandbox.push.apple.com for development
        device tokens); --apns-endpoint sends them to another HTTP/2 server instead (a test server,
        a proxy) and --apns-ca-file adds a CA to trust for it; --max-apns-tokens-per-user caps each
        user's APNs device tokens per container environment (the least recently registered goes).
        --query-candidate-limit is the most records one records/query page may read and check
        in memory where the indexes cannot answer it alone (a filter only the exact check
        applies, a sort PostgreSQL cannot order): the page ends early with a continuation
        marker, or the query is refused with BAD_REQUEST when its order needs them all at once.

        --database postgres://user@host:5432/db keeps the records, accounts, push queues, quota
        counters, shares and request-rate buckets in PostgreSQL instead of SQLite in the data
        directory; the schema is migrated on start, and a newer schema is refused. Any number of
        nodes may share one database. --database-feed-wait (seconds, 0–300, default 3) is how long
        a changes/database page waits for older writes still in flight before it reports the zones
        written after them without moving its token past them (they come again next page).

        --assets-directory is where asset files live (default: assets/ in the data directory).
        Nodes sharing a database must share it too (e.g. an NFS mount), so that an asset
        uploaded through one node downloads from every other.

        \(ServeLimitFlags.usage)

        \(ServeSQLiteFlags.usage)

        Every flag can also be set as an environment variable: STRATUS_HOST, STRATUS_PORT,
        STRATUS_DATA_DIR, STRATUS_DATABASE, STRATUS_ASSETS_DIRECTORY, STRATUS_THREADS, STRATUS_LOG_LEVEL, STRATUS_LOG_FORMAT, STRATUS_OPEN,
        STRATUS_ORIGINS, STRATUS_PUBLIC_URL, STRATUS_TRUSTED_PROXY, STRATUS_TLS_CERTIFICATE, STRATUS_TLS_KEY, STRATUS_BEHIND_PROXY,
        STRATUS_BACKUP_EVERY, STRATUS_BACKUP_KEEP, STRATUS_BACKUP_DIRECTORY, STRATUS_NO_SIGNUP, STRATUS_VERIFICATION_OUTBOX,
        STRATUS_ASSET_LIMIT_MB, STRATUS_REQUESTS_PER_SECOND, STRATUS_CLIENT_REQUESTS_PER_SECOND, STRATUS_PUBLIC_DB_MB,
        STRATUS_PRIVATE_DB_MB, STRATUS_MAX_CONNECTIONS, STRATUS_MAX_CONNECTIONS_PER_ADDRESS,
        STRATUS_CONNECTION_TIMEOUT, STRATUS_MAX_BUFFERED_BODY_MB, STRATUS_UNAUTHENTICATED_REQUESTS_PER_SECOND,
        STRATUS_UPLOAD_URL_LIFETIME, STRATUS_METRICS_TOKEN, STRATUS_MAX_SUBSCRIPTIONS_PER_USER,
        STRATUS_MAX_PUSH_TOKENS_PER_USER, STRATUS_MAX_PARKED_POLLS_PER_USER, STRATUS_MAX_PARKED_POLLS, STRATUS_QUERY_CANDIDATE_LIMIT, STRATUS_DATABASE_FEED_WAIT,
        STRATUS_APNS_ENDPOINT, STRATUS_APNS_CA_FILE, STRATUS_MAX_APNS_TOKENS_PER_USER, STRATUS_CONNECTION_MEMORY_KB,
        STRATUS_SQLITE_READERS, STRATUS_SQLITE_CACHE_MB, STRATUS_SQLITE_READER_CACHE_MB, STRATUS_SQLITE_MMAP_MB.
        """

    /// Every flag `serve` takes.
    static var knownFlags: Set<String> {
        Set<String>(
            [
                "host", "port", "data-dir", "database", "assets-directory", "threads", "log-level", "log-format", "public-url",
                "asset-limit-mb", "requests-per-second", "client-requests-per-second", "public-db-mb", "private-db-mb",
                "query-candidate-limit", "console-loopback-only", "database-feed-wait",
            ] + ServeLimitFlags.names + ServeSQLiteFlags.names
        ).union(securityFlags).union(pushFlags).union(tlsFlags).union(ScheduledBackups.flags)
    }

    static func run(_ options: Options) async throws {
        let unknown = options.unknownFlags(known: knownFlags)
        guard unknown.isEmpty else { throw CLIError("unknown flag(s) for serve: \(unknown.map { "--" + $0 }.joined(separator: ", "))\n\n\(usage)") }
        let logger = try bootstrapLogging(options)

        var configuration = HTTPServerConfiguration()
        configuration.host = options.string("host", default: "127.0.0.1")
        configuration.port = UInt16(try options.integer("port", default: 8420, in: 0...65535))
        configuration.threadPoolSize = try options.integer("threads", default: 4, in: 1...256)
        let security = try securityChoices(options, host: configuration.host)
        configuration.tls = try tlsIdentity(options)
        try checkExposure(options, host: configuration.host, tls: configuration.tls, authenticated: security.authentication.requiresAuthentication)
        let dataDirectory = try DataDirectory(options)
        let backups = try ScheduledBackups.configured(options, dataDirectory: dataDirectory, assets: dataDirectory.assetsDirectory(options))
        let memory = try ServeSQLiteFlags.memory(options, isPostgres: dataDirectory.isPostgres)
        // Every flag is checked before the store opens: a wrong value is refused without touching the database.
        var serviceConfiguration = ServiceConfiguration(tokenSecret: Data())
        security.apply(to: &serviceConfiguration)
        try applyStorage(options, dataDirectory: dataDirectory, logger: logger, to: &serviceConfiguration)
        try applyQuotas(options, to: &serviceConfiguration)
        try applyPushLimits(options, to: &serviceConfiguration.push)
        try ServeLimitFlags.apply(options, http: &configuration, service: &serviceConfiguration)
        let store = try await dataDirectory.openStore(memory: memory, logger: logger)
        serviceConfiguration.tokenSecret = try await dataDirectory.tokenSecret(for: store)
        let service = CloudKitService(store: store, accounts: store, configuration: serviceConfiguration, logger: logger)
        let metrics = MetricsRegistry()
        try startAPNsDelivery(options, service: service, metrics: metrics, logger: logger)
        let assetCollection = Task { await service.runAssetCollection(every: .seconds(3600)) }
        // Changes committed but not fanned out when a node stopped (this one or, with PostgreSQL, another).
        service.startPushFanoutSweeps()
        // With PostgreSQL, other nodes may queue notifications for polls parked here.
        let pushRelay = try store.nodeCoordination.map { shared in
            try shared.startPushRelay(logger: logger) { [service] tokens in service.signalPush(tokens: tokens) }
        }

        let console = makeConsole(options, service: service, store: store, configuration: serviceConfiguration, metrics: metrics, logger: logger)
        let router = ServerRoutes.makeRouter(
            logger: logger, metrics: metrics, metricsAccess: ServeLimitFlags.metricsAccess(options), service: service,
            readiness: ReadinessCheck(store: store), console: console)
        let server = HTTPServer(configuration: configuration, responder: router, logger: logger, metrics: metrics)
        try server.start()
        let reload = reloadOnHangUp(options, server: server, logger: logger)
        let backing = backups.map { backups in Task { await backups.run(logger: logger) } }
        announce(options, host: configuration.host, port: server.port, dataDirectory: dataDirectory, configuration: serviceConfiguration, logger: logger)

        let signal = await TerminationSignal.wait()
        logger.info("received signal \(signal); shutting down")
        reload?.cancel()
        backing?.cancel()
        assetCollection.cancel()
        pushRelay?.stop()
        service.beginShutdown()
        await server.shutdown()
        await service.shutdown()
        try await store.close()
    }

    /// Prints where the server runs and how to start using it.
    private static func announce(
        _ options: Options, host: String, port: UInt16, dataDirectory: DataDirectory, configuration: ServiceConfiguration, logger: Logger
    ) {
        let scheme = options.string("tls-certificate", default: "").isEmpty ? "http" : "https"
        let base = "\(scheme)://\(host.contains(":") ? "[\(host)]" : host):\(port)"
        print("Stratus is running at \(base) with its data in \(dataDirectory.isPostgres ? "PostgreSQL and " : "")\(dataDirectory.url.path)")
        noteSecurity(options, configuration: configuration, base: base, logger: logger)
        print("The console is at \(base)/console (administrators: stratus admin create <email> --password-stdin)")
        if options.flag("open") {
            print(
                "Try: stratus container create iCloud.com.example.Notes, then POST to \(base)/database/1/iCloud.com.example.Notes/development/private/records/modify    (Ctrl-C stops)"
            )
        } else {
            print(
                "Authentication is on: stratus container create iCloud.com.example.Notes; stratus token create iCloud.com.example.Notes; stratus user create you@example.com --password-stdin; then sign in at \(base)/signin?ckAPIToken=<token>    (--open for development without accounts; Ctrl-C stops)"
            )
        }
        fflush(nil)
    }
}
