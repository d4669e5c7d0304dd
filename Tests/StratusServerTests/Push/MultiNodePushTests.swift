import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Two server nodes on one PostgreSQL database: a write through one wakes a poll parked on the other.
@Suite(.enabled(if: PostgresTestDatabase.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct MultiNodePushTests {
    @Test func recordSavedThroughNodeAWakesAPollParkedOnNodeB() async throws {
        let nodeA = try await TestCloudKitServer.start(backend: .postgres)
        let nodeB = try await TestCloudKitServer.startNode(sharingStoreOf: nodeA)
        do {
            try await nodeA.createZones(["Inbox"])
            try await nodeA.subscribe(PushDeliveryTests.noteSubscription("notes", firesOn: [.create]))
            let device = try await nodeB.registerDevice()
            let parked = Task { try await device.poll(timeout: 40) }
            try await Task.sleep(for: .milliseconds(200))
            let started = ContinuousClock.now
            try await nodeA.create("n1", fields: ["title": .string("Hello")], zone: "Inbox")
            let notification = try #require(try await parked.value)
            #expect(notification.ck.qry?.rid == "n1")
            // Woken by the relay, not by the poll's own timeout (40 s; the bound leaves room for a
            // loaded machine, where the fan-out after the commit can take seconds to be scheduled).
            #expect(ContinuousClock.now - started < .seconds(20))
            let delta = try await nodeB.allChanges(zone: "Inbox")
            #expect(delta.records.map(\.recordName) == ["n1"])
        } catch {
            await nodeB.stop()
            await nodeA.stop()
            throw error
        }
        await nodeB.stop()
        await nodeA.stop()
    }
}
