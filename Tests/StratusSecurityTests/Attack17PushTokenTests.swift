import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 17 (push parts): `tokens/register` rebound any token, whoever created it and for
    /// whichever container or environment; `tokens/create` had no limit.
    @Suite("17 push tokens") struct PushTokenAttacks {
        static let backends = RecordStoreBackend.allCases

        /// B registers A's token (registered or not): refused as if it did not exist, and A's
        /// device keeps receiving A's pushes — and none of B's.
        @Test(arguments: backends) func anotherUsersTokenCannotBeRegistered(_ backend: RecordStoreBackend) async throws {
            try await PushAttack.withServer(backend, configure: { $0.push.pollTimeout = .seconds(1) }) { server in
                let victim = try await server.signedInUser("victim@example.com")
                let thief = try await server.signedInUser("thief@example.com")
                let registered = try await PushAttack.device(of: victim, on: server)
                let unregistered = try await PushAttack.device(of: victim, on: server, register: false)

                for device in [registered, unregistered] {
                    let stolen = try await PushAttack.registerToken(device.token, on: server, query: thief.query)
                    #expect(stolen.status == 404, "\(stolen.text)")
                    #expect(stolen.serverErrorCode == "NOT_FOUND")
                }
                let unknown = try await PushAttack.registerToken("no-such-token", on: server, query: thief.query)
                #expect(unknown.status == 404)
                #expect(unknown.reason == (try await PushAttack.registerToken(registered.token, on: server, query: thief.query)).reason)

                let subscription = #"{"subscriptionID":"inbox","subscriptionType":"zone"}"#
                for user in [victim, thief] {
                    #expect(try await PushAttack.subscribe(subscription, as: user, on: server, database: "private").itemErrorCodes("subscriptions") == [nil])
                }
                #expect(try await PushAttack.create("t1", type: "Note", as: thief, on: server, database: "private").itemErrorCodes("records") == [nil])
                #expect(try await PushAttack.create("v1", type: "Note", as: victim, on: server, database: "private").itemErrorCodes("records") == [nil])
                // Fan-out handles the outbox in commit order, so once the victim's push is here any
                // copy of the thief's earlier one would be queued too: the empty polls below prove none is.
                let notification = try #require(try await registered.nextNotification())
                #expect(notification.ck.ckuserid == victim.recordName, "the victim's device got someone else's push")
                #expect(try await registered.notification() == nil)
                #expect(try await unregistered.notification() == nil)
                // The owner may register their own token again (a reinstalled client does).
                #expect(try await PushAttack.registerToken(registered.token, on: server, query: victim.query).status == 200)
            }
        }

        /// A token belongs to the container and environment it was created for: registering it
        /// under another container's or environment's URL is refused.
        @Test(arguments: backends) func aTokenCannotMoveToAnotherContainerOrEnvironment(_ backend: RecordStoreBackend) async throws {
            try await PushAttack.withServer(backend) { server in
                let user = try await server.signedInUser("user@example.com")
                let device = try await PushAttack.device(of: user, on: server, register: false)

                let other = "iCloud.com.example.Other"
                _ = try await server.store.write { try $0.createContainer(other, createdAt: 0) }
                let admin = try server.admin()
                let (otherAPIToken, _) = try await admin.createAPIToken(container: other, environment: .development, name: "other")
                let otherSession = try await admin.webAuthToken(for: user.recordName, container: other)
                let moved = try await PushAttack.registerToken(
                    device.token, on: server, query: [("ckAPIToken", otherAPIToken), ("ckWebAuthToken", otherSession)], container: other
                )
                #expect(moved.status == 404, "\(moved.text)")

                let (productionAPIToken, _) = try await admin.createAPIToken(container: TestCloudKitServer.container, environment: .production, name: "prod")
                let production = try await PushAttack.registerToken(
                    device.token, on: server, query: [("ckAPIToken", productionAPIToken), ("ckWebAuthToken", user.webAuthToken)],
                    environment: "production"
                )
                #expect(production.status == 404, "\(production.text)")

                #expect(try await PushAttack.registerToken(device.token, on: server, query: user.query).status == 200)
            }
        }

        /// `tokens/create` stops at the cap of live tokens per user (100 by default) with
        /// `QUOTA_EXCEEDED` and a reason naming the limit; another user still gets tokens.
        @Test(arguments: backends) func tokenCreationStopsAtTheCap(_ backend: RecordStoreBackend) async throws {
            try await PushAttack.withServer(backend) { server in
                let hoarder = try await server.signedInUser("hoarder@example.com")
                let other = try await server.signedInUser("other@example.com")
                let cap = PushConfiguration().maximumTokensPerUser
                #expect(cap == 100)
                for index in 0..<cap {
                    let reply = try await PushAttack.createToken(on: server, query: hoarder.query)
                    #expect(reply.status == 200, "token \(index): \(reply.text)")
                }
                let past = try await PushAttack.createToken(on: server, query: hoarder.query)
                #expect(past.status == 413, "\(past.text)")
                #expect(past.serverErrorCode == "QUOTA_EXCEEDED")
                #expect(past.reason?.contains("\(cap)") == true, "the reason names the limit: \(past.reason ?? past.text)")
                #expect(try await PushAttack.createToken(on: server, query: other.query).status == 200)
            }
        }
    }
}
