import Foundation
@testable import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Many parked long-polls at once (issue 5: 1,000 clients on the thread pool).
@Suite struct PushFanOutTests {
    /// 1,000 devices parked on the courier hold no server thread: a save still goes through,
    /// and its notification wakes every one of them.
    ///
    /// The test waits until all 1,000 are parked, for as long as more keep parking (a minute
    /// without one more is the guard against a hang). The polls' own timeout is longer than any
    /// such wait: it was 60 s, as long as the wait, so on a slow machine the first polls ran out
    /// and left while the last were still arriving (576 of 1,000 parked under AddressSanitizer).
    @Test(.timeLimit(.minutes(10))) func thousandParkedPollsAreAllWoken() async throws {
        let count = 1_000
        let configure: (inout ServiceConfiguration) -> Void = { configuration in
            configuration.push.pollTimeout = .seconds(600)
            // One user's 1,000 devices: above the default per-user limit of parked polls.
            configuration.push.maximumParkedPollsPerUser = count
        }
        try await withServer(.sqlite, configure: configure) { server in
            try await server.subscribe(Subscription(subscriptionID: "all", subscriptionType: .query, query: Query(recordType: "Note"), firesOn: [.create]))
            let user = server.service.configuration.openModeUserRecordName
            let tokens = (0..<count).map { "fanout-\($0)" }
            try await server.store.write { tx in
                for token in tokens {
                    try tx.createPushToken(
                        PushTokenRow(
                            token: token, container: TestCloudKitServer.container, environment: .development, apnsEnvironment: "development",
                            user: user, createdAt: 0, expiresAt: .max
                        )
                    )
                }
            }
            let fleet = PollFleet(port: server.http.port, targets: tokens.map { "/courier/\($0)" })
            try await fleet.launch()
            let courier = server.service.courier
            var parked = 0
            while courier.waiters.count < count {
                let before = parked
                guard await eventually(timeout: .seconds(60), { courier.waiters.count > before }) else { break }
                parked = courier.waiters.count
            }
            #expect(courier.waiters.count == count, "\(courier.waiters.count) of \(count) polls parked, and no more for a minute")

            let saved = ContinuousClock.now
            try await server.create("wake", fields: [:])
            let replies = try await fleet.collect(timeout: .seconds(60))
            let notifications = try replies.map { try WireCoding.decode(CourierNotification.self, from: $0.body) }
            #expect(notifications.allSatisfy { $0.ck.qry?.rid == "wake" })
            #expect(Set(notifications.compactMap(\.ck.nid)).count == 1)
            let slowest = replies.map { $0.arrival - saved }.max() ?? .zero
            print("fan-out: \(count) parked polls woken within \(slowest) of the save's start")
        }
    }
}
