import Foundation
import StratusLogging
import StratusServer

extension ServeCommand {
    /// `--log-level` and `--log-format`: sets up logging and returns the server's logger.
    static func bootstrapLogging(_ options: Options) throws -> Logger {
        let levelName = options.string("log-level", default: "info")
        guard let level = Logger.Level(name: levelName) else {
            throw CLIError("--log-level must be one of \(Logger.Level.allCases.map(\.description).joined(separator: ", ")); got '\(levelName)'")
        }
        let format: StreamLogHandler.Format
        switch options.string("log-format", default: "text") {
        case "text": format = .text
        case "json": format = .jsonLines
        case let other: throw CLIError("--log-format must be text or json; got '\(other)'")
        }
        LoggingSystem.bootstrap(level: level) { _ in StreamLogHandler(format: format) }
        return Logger(label: "stratus")
    }

    /// `--assets-directory`, `--asset-limit-mb`, `--public-url`, `--query-candidate-limit` and
    /// `--database-feed-wait` (PostgreSQL only: SQLite's feeds hold nothing back).
    static func applyStorage(
        _ options: Options, dataDirectory: DataDirectory, logger: Logger, to configuration: inout ServiceConfiguration
    ) throws {
        configuration.assets.directory = dataDirectory.assetsDirectory(options)
        if dataDirectory.isPostgres, options.string("assets-directory", default: "").isEmpty {
            logger.notice("assets live in \(dataDirectory.assetsURL.path); with several nodes, give them one shared --assets-directory")
        }
        configuration.assets.maximumSize = try options.integer("asset-limit-mb", default: 50, in: 1...4096) << 20
        let publicURL = options.string("public-url", default: "")
        configuration.publicBaseURL = publicURL.isEmpty ? nil : publicURL
        configuration.limits.maximumQueryCandidates = try options.integer(
            "query-candidate-limit", default: QueryPlan.defaultCandidateLimit, in: 201...100_000_000
        )
        let feedWait = try options.integer("database-feed-wait", default: 3, in: 0...300)
        guard dataDirectory.isPostgres || options.string("database-feed-wait", default: "").isEmpty else {
            throw CLIError("--database-feed-wait is how long a PostgreSQL database feed waits for writes in flight; it needs --database")
        }
        configuration.limits.databaseFeedWait = .seconds(feedWait)
    }

    /// `--requests-per-second`, `--client-requests-per-second`, `--public-db-mb` and `--private-db-mb`.
    static func applyQuotas(_ options: Options, to configuration: inout ServiceConfiguration) throws {
        let rate = try options.integer("requests-per-second", default: 40, in: 0...10_000_000)
        if rate == 0 {
            configuration.quotas.defaults.requestsPerSecond = QuotaLimits.unlimited.requestsPerSecond
            configuration.quotas.defaults.burst = QuotaLimits.unlimited.burst
        } else {
            configuration.quotas.defaults.requestsPerSecond = Double(rate)
            configuration.quotas.defaults.burst = Double(rate)
        }
        let clientRate = try options.integer("client-requests-per-second", default: 0, in: 0...10_000_000)
        if clientRate > 0 {
            configuration.quotas.defaults.clientRequestsPerSecond = Double(clientRate)
        }
        configuration.quotas.defaults.publicRecordBytes = Int64(try options.integer("public-db-mb", default: 100, in: 1...100_000_000)) << 20
        configuration.quotas.defaults.privateBytesPerUser = Int64(try options.integer("private-db-mb", default: 1024, in: 1...100_000_000)) << 20
    }
}
