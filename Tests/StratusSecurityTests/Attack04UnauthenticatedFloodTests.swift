import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 4: requests without valid credentials spent the container's rate budget, so a
    /// flood of them locked every real user out with 429; and an unknown container answered 404
    /// where a known one answered 401, telling an outsider which containers exist.
    @Suite("04 unauthenticated flood and container existence")
    struct UnauthenticatedFloodAttacks {
        /// A server whose container budget holds 4 requests and does not refill while the test runs.
        static func server(
            failuresPerAddress: Double?, containers: [String] = [TestCloudKitServer.container]
        ) async throws
            -> TestCloudKitServer
        {
            try await TestCloudKitServer.startAuthenticated(containers: containers) { configuration in
                configuration.quotas.defaults = QuotaLimits(requestsPerSecond: 0.001, burst: 4)
                configuration.quotas.now = { 1_750_000_000_000 }
                configuration.quotas.unauthenticatedRequestsPerSecond = failuresPerAddress
                configuration.quotas.unauthenticatedBurst = 3
            }
        }

        /// The attacker's requests: no credentials, a made-up API token, a made-up web auth token;
        /// with a body (refused on the head) and without (refused after routing).
        static func flood(_ server: TestCloudKitServer, rounds: Int) async throws -> [TestCloudKitServer.Reply] {
            var replies: [TestCloudKitServer.Reply] = []
            let modify = #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{}}}]}"#
            for round in 0..<rounds {
                let bogus = [("ckAPIToken", "not-a-token-\(round)")]
                replies.append(try await server.exchange("records/modify", modify, database: "public"))
                replies.append(try await server.exchange("zones/list", method: "GET", query: bogus))
                replies.append(
                    try await server.exchange("records/modify", modify, query: bogus + [("ckWebAuthToken", "forged-\(round)")])
                )
            }
            return replies
        }

        @Test func aFloodWithoutValidCredentialsLeavesTheContainersBudgetToItsUsers() async throws {
            let server = try await Self.server(failuresPerAddress: nil)
            let ada = try await server.signedInUser("ada@example.com")
            let replies = try await Self.flood(server, rounds: 10)
            let afterFlood = try await server.exchange("zones/list", method: "GET", query: ada.query)
            await server.stop()
            #expect(replies.allSatisfy { $0.status == 401 && $0.serverErrorCode == "AUTHENTICATION_FAILED" })
            #expect(afterFlood.status == 200, "the flood spent the container's budget: \(afterFlood.text)")
        }

        @Test func aFloodFromOneAddressIsThrottledOnItsOwnBucketWhileUsersCarryOn() async throws {
            let server = try await Self.server(failuresPerAddress: 0.001)
            let ada = try await server.signedInUser("ada@example.com")
            let replies = try await Self.flood(server, rounds: 4)
            let afterFlood = try await server.exchange("zones/list", method: "GET", query: ada.query)
            await server.stop()
            #expect(replies.prefix(3).allSatisfy { $0.status == 401 })
            #expect(replies.dropFirst(3).allSatisfy { $0.status == 429 && $0.serverErrorCode == "THROTTLED" })
            #expect(replies.last?.headers["retry-after"] != nil)
            #expect(afterFlood.status == 200, "a signed-in user from the same address was refused: \(afterFlood.text)")
        }

        /// What a caller can compare between two answers: everything but the request ID.
        static func shape(_ reply: TestCloudKitServer.Reply) -> String {
            guard case .object(let object) = reply.json else { return "\(reply.status) \(reply.text)" }
            let fields = object.filter { $0.key != "uuid" }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            return "\(reply.status) \(fields)"
        }

        @Test func anUnknownContainerAnswersExactlyLikeABadCredential() async throws {
            let other = "iCloud.com.example.Other"
            let server = try await Self.server(failuresPerAddress: nil, containers: [TestCloudKitServer.container, other])
            let token = try await server.makeAPIToken()
            let unknown = "iCloud.com.example.DoesNotExist"
            let body = Data(#"{"query":{"recordType":"Note"}}"#.utf8)
            let device = Data(#"{"apnsEnvironment":"development"}"#.utf8)
            var pairs: [(existing: TestCloudKitServer.Reply, unknown: TestCloudKitServer.Reply)] = []
            for query in [[], [("ckAPIToken", "not-a-token")], [("ckAPIToken", token)]] {
                // A token of one container is no credential for another, existing or not.
                for operation in ["records/query", "zones/list"] {
                    pairs.append(
                        (
                            try await server.exchange(operation, body: body, database: "public", query: query, container: other),
                            try await server.exchange(operation, body: body, database: "public", query: query, container: unknown)
                        )
                    )
                }
                pairs.append(
                    (
                        try await server.exchange("/device/1/\(other)/development/tokens/create", body: device, query: query),
                        try await server.exchange("/device/1/\(unknown)/development/tokens/create", body: device, query: query)
                    )
                )
            }
            await server.stop()
            for (existing, missing) in pairs {
                #expect(existing.status == 401)
                #expect(Self.shape(missing) == Self.shape(existing))
            }
        }

        @Test func openModeStillSaysAContainerDoesNotExist() async throws {
            let server = try await TestCloudKitServer.start()
            let reply = try await server.exchange("zones/list", method: "GET", container: "iCloud.com.example.DoesNotExist")
            await server.stop()
            #expect(reply.status == 404)
            #expect(reply.text.contains("stratus container create"))
        }
    }
}
