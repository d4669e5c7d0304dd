import Foundation
import StratusHTTP
import StratusMetrics
import StratusServer
import StratusWire

/// Storage per container and per user against the quotas (Documentation/0017-sharing-and-quotas.md),
/// read through the store's own usage counters.
extension Console {
    struct UsageLine: Encodable {
        var database: String
        var user: String?
        var recordBytes: Int64
        var assetBytes: Int64
        var quotaBytes: Int64
        /// The user's requests admitted by this node since it started (``UserRequestCounts``).
        var requests: Int64?
    }

    struct UsageAnswer: Encodable {
        var container: String
        var environment: String
        var requestsPerSecond: Double
        var lines: [UsageLine]
        /// Whether more users exist than were read (``usageUserLimit``).
        var truncated: Bool
        /// Whether the node's request table is full, so users first seen since are not counted.
        var requestCountsFull: Bool
    }

    /// The most users one usage answer reads.
    static let usageUserLimit = 500

    func registerUsage(on router: inout Router) {
        read(&router, Self.basePath + "/api/usage/{container}/{environment}") { [self] request, _ in
            let container = try request.parameter("container")
            let name = try request.parameter("environment")
            guard let environment = Environment(rawValue: name) else {
                throw HTTPError.badRequest("unknown environment '\(name)'; use 'development' or 'production'")
            }
            try await requireContainer(container)
            let users = try await administration?.users() ?? []
            let limits = quotas.limits(for: container)
            let owners = users.prefix(Self.usageUserLimit).map { ($0.userRecordName, $0.emailAddress) }
            let requests = service.userRequestCounts.counts(container: container, environment: environment)
            // The counters are read where they are kept: the store's usage primitive (a locking read on PostgreSQL).
            let lines = try await records.write { tx -> [UsageLine] in
                let publicUsage = try tx.usage(of: DatabaseKey(container: container, environment: environment, scope: .public, owner: DatabaseKey.publicOwner))
                var lines = [
                    UsageLine(
                        database: "public", user: nil, recordBytes: publicUsage.recordBytes, assetBytes: publicUsage.assetBytes,
                        quotaBytes: limits.publicRecordBytes
                    )
                ]
                for (owner, email) in owners {
                    let usage = try tx.usage(of: DatabaseKey(container: container, environment: environment, scope: .private, owner: owner))
                    lines.append(
                        UsageLine(
                            database: "private", user: email, recordBytes: usage.recordBytes, assetBytes: usage.assetBytes,
                            quotaBytes: limits.privateBytesPerUser, requests: requests[owner] ?? 0
                        ))
                }
                return lines
            }
            return try .json(
                UsageAnswer(
                    container: container, environment: name, requestsPerSecond: limits.requestsPerSecond, lines: lines,
                    truncated: users.count > Self.usageUserLimit, requestCountsFull: service.userRequestCounts.isFull
                ))
        }
    }
}

/// Containers, the server's request metrics and the live tail of its request log.
extension Console {
    func registerOperations(on router: inout Router) {
        read(&router, Self.basePath + "/api/containers") { [self] _, _ in
            try .json(try await records.read { try $0.containers() })
        }
        read(&router, Self.basePath + "/api/metrics") { [self] _, _ in
            .text(metrics?.prometheusText() ?? "", contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
        read(&router, Self.basePath + "/api/requests") { [self] request, _ in
            try .json(requestLog.entries(after: request.query["after"].flatMap { Int64($0) } ?? 0))
        }
    }
}
