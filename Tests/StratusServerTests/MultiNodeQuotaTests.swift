import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Request rates and storage quotas hold across server nodes on one PostgreSQL database.
@Suite(.enabled(if: PostgresTestDatabase.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct MultiNodeQuotaTests {
    @Test func aContainersRequestRateHoldsAcrossNodes() async throws {
        let frozen: Int64 = 1_750_000_000_000
        try await withPostgresNodes(
            2,
            configure: { configuration in
                configuration.quotas.defaults = QuotaLimits(requestsPerSecond: 40, burst: 0)
                configuration.quotas.now = { frozen }  // no refill while the test runs
            }
        ) { clients in
            var statuses: [Int] = []
            for index in 0..<60 {
                statuses.append(try await clients[index % 2].post("records/lookup", #"{"records":[{"recordName":"missing"}]}"#).status)
            }
            // One budget of 40 for the container, not 40 per node.
            #expect(statuses.filter { $0 == 200 }.count == 40, "\(statuses)")
            #expect(statuses.filter { $0 == 429 }.count == 20)
            #expect(statuses.prefix(40).allSatisfy { $0 == 200 })
            let refused = try await clients[1].post("records/lookup", #"{"records":[{"recordName":"missing"}]}"#)
            #expect(String(decoding: refused.body, as: UTF8.self).contains("THROTTLED"))
        }
    }

    @Test func concurrentWritesThroughTwoNodesCannotOvershootAPrivateQuota() async throws {
        try await withPostgresNodes(2, configure: { $0.quotas.defaults.privateBytesPerUser = 2_500 }) { clients in
            // Ten zones of one user's private database; each writer fills a zone with a ~1 KB record.
            for zone in 0..<10 { try await clients[0].createZone("z\(zone)") }
            let big = String(repeating: "q", count: 900)
            let outcomes = try await withThrowingTaskGroup(of: Int.self) { group in
                for writer in 0..<10 {
                    group.addTask {
                        try await clients[writer % 2].post(
                            "records/modify", WireJSON.modify([WireJSON.create("r", fields: #"{"body":{"value":"\#(big)"}}"#)], zone: "z\(writer)")
                        ).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            // Two records fit in 2,500 bytes, three do not: whichever node they came through.
            #expect(outcomes.filter { $0 == 200 }.count == 2, "\(outcomes)")
            #expect(outcomes.filter { $0 == 413 }.count == 8)
        }
    }
}
