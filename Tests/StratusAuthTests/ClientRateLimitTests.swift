import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Per-client rate buckets (`QuotaLimits.clientRequestsPerSecond`) inside the container's bucket.
@Suite struct ClientRateLimitTests {
    /// The statuses of `count` GET `zones/list` requests.
    static func statuses(_ server: TestCloudKitServer, _ count: Int, database: String = "private", query: [(String, String)] = []) async throws -> [Int] {
        var statuses: [Int] = []
        for _ in 0..<count {
            statuses.append(try await server.exchange("zones/list", method: "GET", database: database, query: query).status)
        }
        return statuses
    }

    static func retryAfter(_ reply: TestCloudKitServer.Reply) -> Int64? {
        guard case .integer(let seconds)? = reply.json["retryAfter"] else { return nil }
        return seconds
    }

    @Test func oneClientOverItsRateLeavesTheContainersBudgetToTheOthers() async throws {
        let clock = ManualClock()
        try await withAuthServer(configure: { configuration in
            configuration.quotas.defaults = QuotaLimits(requestsPerSecond: 10, burst: 0, clientRequestsPerSecond: 4, clientBurst: 0)
            configuration.quotas.now = clock.reader
        }) { server in
            let ada = try await server.signedInUser("ada@example.com")
            let bob = try await server.signedInUser("bob@example.com")
            // Ada gets her 4; the next 6 are refused by her own bucket and give the container its tokens back.
            #expect(try await Self.statuses(server, 10, query: ada.query) == Array(repeating: 200, count: 4) + Array(repeating: 429, count: 6))
            let refused = try await server.exchange("zones/list", method: "GET", query: ada.query)
            #expect(refused.status == 429)
            #expect(refused.serverErrorCode == "THROTTLED")
            #expect(refused.json["reason"]?.stringValue?.contains("user '\(ada.recordName)' is over its limit of 4 requests per second") == true)
            #expect(Self.retryAfter(refused) == 1)
            #expect(refused.headers["retry-after"] == "1")
            // Bob still has all of his (the container has spent 4 of 10) …
            #expect(try await Self.statuses(server, 5, query: bob.query) == [200, 200, 200, 200, 429])
            // … and an API token alone is a client of its own: it gets the container's last 2.
            let anonymous = [("ckAPIToken", bob.apiToken)]
            #expect(try await Self.statuses(server, 2, database: "public", query: anonymous) == [200, 200])
            let container = try await server.exchange("zones/list", method: "GET", database: "public", query: anonymous)
            #expect(container.status == 429)
            #expect(container.json["reason"]?.stringValue?.contains("container '\(TestCloudKitServer.container)' is over its limit") == true)
            // A second later every bucket has refilled.
            clock.advance(by: 1_000)
            #expect(try await Self.statuses(server, 1, query: ada.query) == [200])
        }
    }

    @Test func openModeClientsAreToldApartByAddressAndTheLimitIsOffByDefault() async throws {
        let clock = ManualClock()
        let limited = try await TestCloudKitServer.start { configuration in
            configuration.quotas.defaults = QuotaLimits(requestsPerSecond: 100, burst: 0, clientRequestsPerSecond: 2, clientBurst: 1)
            configuration.quotas.now = clock.reader
        }
        try await QuotaTests.run(limited) {
            // A bucket of rate + burst = 3 for 127.0.0.1.
            #expect(try await Self.statuses(limited, 4) == [200, 200, 200, 429])
            let refused = try await limited.exchange("zones/list", method: "GET")
            #expect(refused.json["reason"]?.stringValue?.contains("client address '127.0.0.1'") == true)
            #expect(Self.retryAfter(refused) == 1)
        }
        // Without clientRequestsPerSecond only the container's bucket counts.
        let unlimited = try await TestCloudKitServer.start { configuration in
            configuration.quotas.defaults = QuotaLimits(requestsPerSecond: 100, burst: 0)
            configuration.quotas.now = clock.reader
        }
        try await QuotaTests.run(unlimited) {
            let statuses = try await Self.statuses(unlimited, 10)
            #expect(statuses == Array(repeating: 200, count: 10))
        }
    }
}
