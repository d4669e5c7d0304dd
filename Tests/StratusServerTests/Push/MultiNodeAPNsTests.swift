import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Several nodes on one PostgreSQL database push each notification once, whichever node committed it.
@Suite(
    .enabled(if: PostgresTestDatabase.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"),
    .enabled(if: FakeAPNsServer.isEnabled, "run Scripts/fake-apns.sh install (make test does)")
)
struct MultiNodeAPNsTests {
    @Test func twoNodesPushEachNotificationOnce() async throws {
        try await APNsWorld.with(.postgres) { world in
            let nodeA = world.server
            let nodeB = try await TestCloudKitServer.startNode(sharingStoreOf: nodeA) { APNsWorld.configure(&$0, fake: world.fake) }
            do {
                try await nodeB.deliverAPNs(to: world.fake)
                let token = APNsWorld.deviceToken(60)
                try await world.register(token)
                try await nodeA.subscribe(APNsDeliveryTests.zoneSubscription("zone"))
                // Saves through both nodes; each node's fan-out and sweeps race for the same queue.
                for index in 0..<20 {
                    try await (index % 2 == 0 ? nodeA : nodeB).create("n\(index)", fields: [:])
                }
                let pushes = try await world.fake.pushes(atLeast: 20, timeout: .seconds(20))
                #expect(pushes.count == 20)
                // Several sweeps of both nodes later, still once each.
                try await Task.sleep(for: .seconds(1))
                let settled = try await world.fake.pushes()
                #expect(settled.count == 20)
                #expect(Set(settled.compactMap { $0.notification?.ck.nid }).count == 20)
                #expect(settled.allSatisfy { $0.token == token && $0.status == 200 && $0.problems.isEmpty })
                let sent = nodeA.service.apnsStatistics.sent + nodeB.service.apnsStatistics.sent
                #expect(sent == 20)
            } catch {
                await nodeB.stop()
                throw error
            }
            await nodeB.stop()
        }
    }
}
