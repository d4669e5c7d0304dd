import Foundation
@testable import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Device tokens cross a trust boundary: a user's pushes reach only that user's devices.
@Suite(.enabled(if: FakeAPNsServer.isEnabled, "run Scripts/fake-apns.sh install (make test does)"))
struct APNsIsolationTests {
    static let inboxZone = #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Inbox"}}}]}"#
    static let inboxSubscription =
        #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"inbox","subscriptionType":"zone","zoneID":{"zoneName":"Inbox"}}}]}"#
    static func save(_ name: String) -> String {
        #"{"zoneID":{"zoneName":"Inbox"},"operations":[{"operationType":"create","record":{"recordType":"Note","recordName":"\#(name)"}}]}"#
    }

    /// A and B both subscribe to their own Inbox; A's save reaches A's token only — never B's,
    /// and after B registers the token A had (a device changing hands), A's saves no longer reach it.
    @Test(arguments: RecordStoreBackend.allCases) func aUsersPushNeverReachesAnotherUsersToken(_ backend: RecordStoreBackend) async throws {
        try await APNsWorld.with(backend, authenticated: true) { world in
            let server = world.server
            let a = try await server.signedInUser("a@example.com")
            let b = try await server.signedInUser("b@example.com")
            for user in [a, b] {
                #expect(try await server.exchange("zones/modify", Self.inboxZone, query: user.query).status == 200)
                #expect(try await server.exchange("subscriptions/modify", Self.inboxSubscription, query: user.query).status == 200)
            }
            let (tokenA, tokenB) = (APNsWorld.deviceToken(21), APNsWorld.deviceToken(22))
            try await world.register(tokenA, query: a.query)
            try await world.register(tokenB, query: b.query)

            #expect(try await server.exchange("records/modify", Self.save("a1"), query: a.query).status == 200)
            try await server.service.drainPushOutbox()
            #expect(server.service.fanout.statistics.queuedAPNsPushes == 1, "A's change was queued for more than A's device")
            let first = try await world.fake.pushes(atLeast: 1)
            #expect(first.map(\.token) == [tokenA])
            #expect(first.first?.notification?.ck.ckuserid == a.recordName)
            #expect(try await world.fake.pushes(atLeast: 2, timeout: .milliseconds(500)).count == 1, "B's token got A's push")

            // The device that had A's token is now B's: A's next change does not go to it.
            try await world.register(tokenA, query: b.query)
            #expect(try await server.exchange("records/modify", Self.save("a2"), query: a.query).status == 200)
            try await server.service.drainPushOutbox()
            #expect(server.service.fanout.statistics.queuedAPNsPushes == 1, "A's change was queued for the token that moved to B")
            #expect(try await world.fake.pushes(atLeast: 2, timeout: .milliseconds(500)).count == 1, "a token that moved to B still got A's push")
            // B's change goes to both of B's tokens.
            #expect(try await server.exchange("records/modify", Self.save("b1"), query: b.query).status == 200)
            try await server.service.drainPushOutbox()
            #expect(server.service.fanout.statistics.queuedAPNsPushes == 3)
            let later = try await world.fake.pushes(atLeast: 3).dropFirst()
            #expect(Set(later.map(\.token)) == [tokenA, tokenB])
            #expect(later.allSatisfy { $0.notification?.ck.ckuserid == b.recordName })
        }
    }

    /// A user keeps at most `maximumDeviceTokensPerUser` tokens: the least recently registered goes.
    @Test func deviceTokensPerUserAreCapped() async throws {
        try await APNsWorld.with(configure: { $0.push.apns.maximumDeviceTokensPerUser = 3 }) { world in
            for number in 30..<35 { try await world.register(APNsWorld.deviceToken(number)) }
            let tokens = try await world.server.store.read { tx in
                try tx.apnsDeviceTokens(of: "_00000000000000000000000000000001", container: TestCloudKitServer.container, environment: .development)
            }
            #expect(Set(tokens.map(\.token)) == Set((32..<35).map(APNsWorld.deviceToken)))
        }
    }

    /// Registering needs a signed-in user, and a device token's APNs environment must be one APNs has.
    @Test func registeringADeviceTokenNeedsAUserAndAKnownEnvironment() async throws {
        try await APNsWorld.with(authenticated: true) { world in
            let user = try await world.server.signedInUser("c@example.com")
            let path = "/device/1/\(TestCloudKitServer.container)/development/tokens/register"
            let body = Data(#"{"apnsEnvironment":"development","apnsToken":"\#(APNsWorld.deviceToken(40))"}"#.utf8)
            let anonymous = try await world.server.exchange(path, body: body, query: [("ckAPIToken", user.apiToken)])
            #expect(anonymous.status == 421)
            let odd = Data(#"{"apnsEnvironment":"staging","apnsToken":"\#(APNsWorld.deviceToken(40))"}"#.utf8)
            let refused = try await world.server.exchange(path, body: odd, query: user.query)
            #expect(refused.status == 400)
            #expect(refused.serverErrorCode == "BAD_REQUEST")
            let stored = try await world.server.store.read { tx in
                try tx.apnsDeviceTokens(of: user.recordName, container: TestCloudKitServer.container, environment: .development)
            }
            #expect(stored.isEmpty)
        }
    }
}
