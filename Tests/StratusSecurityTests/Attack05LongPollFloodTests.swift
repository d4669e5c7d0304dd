import Foundation
@testable import StratusServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 5 (long-poll part): one client could park any number of web-courier polls, each
    /// holding a connection until its timeout, until no other client got a slot.
    @Suite("05 long-poll flood") struct LongPollFloodAttacks {
        static let backends = RecordStoreBackend.allCases

        /// Waits until `count` polls are parked on the server's courier.
        static func awaitParked(_ count: Int, on server: TestCloudKitServer) async -> Bool {
            await eventually(timeout: .seconds(30)) { server.service.courier.waiters.count == count }
        }

        /// With 3 polls per user and 5 in all: the attacker's fourth poll is refused at once
        /// (429 THROTTLED with a reason naming the limit) while their first three stay parked;
        /// a second user still parks two; a sixth poll overall is refused (503 TRY_AGAIN_LATER);
        /// the parked polls still deliver.
        @Test(arguments: backends) func oneUserCannotHoldEveryParkedPoll(_ backend: RecordStoreBackend) async throws {
            let configure: (inout ServiceConfiguration) -> Void = { configuration in
                configuration.push.pollTimeout = .seconds(30)
                configuration.push.maximumParkedPollsPerUser = 3
                configuration.push.maximumParkedPolls = 5
            }
            try await PushAttack.withServer(backend, configure: configure) { server in
                let attacker = try await server.signedInUser("attacker@example.com")
                let user = try await server.signedInUser("user@example.com")
                let late = try await server.signedInUser("late@example.com")
                var attackerDevices: [PushAttack.Device] = []
                for _ in 0..<4 { attackerDevices.append(try await PushAttack.device(of: attacker, on: server)) }
                let userDevices = [try await PushAttack.device(of: user, on: server), try await PushAttack.device(of: user, on: server)]
                let lateDevice = try await PushAttack.device(of: late, on: server)

                let attackerPolls = attackerDevices.prefix(3).map { device in Task { try await device.poll(timeout: 60) } }
                #expect(await Self.awaitParked(3, on: server))
                let started = ContinuousClock.now
                let refused = try await attackerDevices[3].poll(timeout: 60)
                #expect(ContinuousClock.now - started < .seconds(10), "the poll past the cap was parked, not refused")
                #expect(refused.status == 429, "\(String(decoding: refused.body, as: UTF8.self))")
                #expect(String(decoding: refused.body, as: UTF8.self).contains("THROTTLED"))
                #expect(String(decoding: refused.body, as: UTF8.self).contains("3"))

                let userPolls = userDevices.map { device in Task { try await device.poll(timeout: 60) } }
                #expect(await Self.awaitParked(5, on: server))
                let full = try await lateDevice.poll(timeout: 60)
                #expect(full.status == 503, "\(String(decoding: full.body, as: UTF8.self))")
                #expect(String(decoding: full.body, as: UTF8.self).contains("TRY_AGAIN_LATER"))

                // The parked polls are intact: the user's subscription reaches both of their devices.
                let subscription = #"{"subscriptionID":"inbox","subscriptionType":"zone"}"#
                #expect(try await PushAttack.subscribe(subscription, as: user, on: server, database: "private").itemErrorCodes("subscriptions") == [nil])
                #expect(try await PushAttack.create("n1", type: "Note", as: user, on: server, database: "private").itemErrorCodes("records") == [nil])
                for poll in userPolls {
                    let reply = try await poll.value
                    #expect(reply.status == 200)
                    #expect(String(decoding: reply.body, as: UTF8.self).contains("\"sid\":\"inbox\""))
                }
                server.service.beginShutdown()
                for poll in attackerPolls { _ = try await poll.value }
            }
        }

        /// A client whose connection dropped polls its token again: the new poll replaces the one
        /// left parked (which answers empty at once), so reconnecting never runs into the cap.
        @Test(arguments: backends) func aNewPollOnTheSameTokenReplacesTheOldOne(_ backend: RecordStoreBackend) async throws {
            let configure: (inout ServiceConfiguration) -> Void = { configuration in
                configuration.push.pollTimeout = .seconds(30)
                configuration.push.maximumParkedPollsPerUser = 1
            }
            try await PushAttack.withServer(backend, configure: configure) { server in
                let user = try await server.signedInUser("user@example.com")
                let device = try await PushAttack.device(of: user, on: server)
                let orphan = Task { try await device.poll(timeout: 60) }
                #expect(await Self.awaitParked(1, on: server))
                let started = ContinuousClock.now
                let current = Task { try await device.poll(timeout: 60) }
                let replaced = try await orphan.value
                #expect(replaced.status == 200)
                #expect(replaced.body.isEmpty)
                #expect(ContinuousClock.now - started < .seconds(10))
                #expect(await Self.awaitParked(1, on: server))

                let subscription = #"{"subscriptionID":"inbox","subscriptionType":"zone"}"#
                #expect(try await PushAttack.subscribe(subscription, as: user, on: server, database: "private").itemErrorCodes("subscriptions") == [nil])
                #expect(try await PushAttack.create("n1", type: "Note", as: user, on: server, database: "private").itemErrorCodes("records") == [nil])
                let delivered = try await current.value
                #expect(String(decoding: delivered.body, as: UTF8.self).contains("\"sid\":\"inbox\""))
            }
        }
    }
}
