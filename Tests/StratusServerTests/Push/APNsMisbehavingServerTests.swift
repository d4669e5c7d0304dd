import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// APNs answers come from the network: garbage, a huge body or no answer at all never wedge
/// delivery to other devices, and never hold up a write.
@Suite(.enabled(if: FakeAPNsServer.isEnabled, "run Scripts/fake-apns.sh install (make test does)"))
struct APNsMisbehavingServerTests {
    /// One token's push stalls (no answer until its 15 s request deadline). While it is stalled —
    /// before its retry — a write completes and the next change reaches another device, and the
    /// same device too: its second push gets a 5 MB body, then garbage, each retried, then 200.
    /// In the end the stalled push is retried and delivered as well.
    @Test func stalledHugeAndGarbageAnswersNeverWedgeDelivery() async throws {
        try await APNsWorld.with(configure: { $0.push.apns.requestTimeout = .seconds(15) }) { world in
            let (slow, healthy) = (APNsWorld.deviceToken(50), APNsWorld.deviceToken(51))
            try await world.register(slow)
            try await world.fake.script(token: slow, [.stall, .huge(200, size: 5 << 20), .raw(500, body: "\u{1}\u{2}not json at all")])
            try await world.server.subscribe(APNsDeliveryTests.zoneSubscription("zone"))
            try await world.server.create("n1", fields: [:])
            let stalled = try #require(try await world.fake.pushes(atLeast: 1).first)
            #expect(stalled.token == slow)
            let stalledID = stalled.notification?.ck.nid

            // The stalled push holds nothing else up: a write, and the next change's pushes.
            try await world.register(healthy)
            try await world.server.create("n2", fields: [:])
            let healthyPush = try await world.firstPush(for: healthy)
            #expect(healthyPush?.status == 200)
            let stalledSoFar = try await world.fake.pushes().filter { $0.notification?.ck.nid == stalledID }
            #expect(stalledSoFar.count == 1, "the next change went out only after the stalled push's deadline")

            // Everything is delivered: n2 to the slow device after a huge and a garbage answer, n1 after its timeout.
            let statistics = try await world.statistics(within: .seconds(60)) { $0.sent >= 3 }
            #expect(statistics.sent == 3)
            #expect(statistics.failed == 0)
            #expect(statistics.retried >= 3)
            let pushes = try await world.fake.pushes()
            #expect(pushes.filter { $0.notification?.ck.nid == stalledID }.map(\.status).suffix(1) == [200])
            #expect(pushes.filter { $0.token == slow }.count == 5)
        }
    }

    /// A 400 with a body that is not APNs' JSON is a refusal: the push is dropped, delivery goes on.
    @Test func garbageRefusalIsDroppedAndDeliveryGoesOn() async throws {
        try await APNsWorld.with { world in
            let token = APNsWorld.deviceToken(52)
            try await world.register(token)
            try await world.fake.script(token: token, [.raw(400, body: String(repeating: "\u{FFFD}{[", count: 3000))])
            try await world.server.subscribe(APNsDeliveryTests.zoneSubscription("zone"))
            try await world.server.create("n1", fields: [:])
            #expect(try await world.statistics { $0.failed == 1 }.failed == 1)
            try await world.server.create("n2", fields: [:])
            #expect(try await world.statistics { $0.sent == 1 }.sent == 1)
            // The token stays: a refusal of one push says nothing about the device.
            let tokens = try await world.server.store.read { tx in
                try tx.apnsDeviceTokens(of: "_00000000000000000000000000000001", container: TestCloudKitServer.container, environment: .development)
            }
            #expect(tokens.map(\.token) == [token])
        }
    }

    /// Without the test CA the fake's certificate is not trusted: TLS fails, nothing reaches it
    /// (never sent without verification), and the push waits for a retry.
    @Test func untrustedCertificateIsRefused() async throws {
        let fake = try await FakeAPNsServer.start()
        defer { fake.stop() }
        let server = try await TestCloudKitServer.start { APNsWorld.configure(&$0, fake: fake) }
        do {
            try await fake.storeCredentials(in: server.store, container: TestCloudKitServer.container)
            server.service.startAPNsDelivery(transport: try CurlAPNsTransportFactory.withoutTestCA())
            let world = APNsWorld(server: server, fake: fake, failures: APNsTransportFailures())
            try await world.register(APNsWorld.deviceToken(53))
            try await server.subscribe(APNsDeliveryTests.zoneSubscription("zone"))
            try await server.create("n1", fields: [:])
            let statistics = try await world.statistics { $0.retried >= 1 }
            #expect(statistics.retried >= 1)
            #expect(statistics.sent == 0)
            #expect(try await fake.pushes(atLeast: 1, timeout: .milliseconds(300)).isEmpty)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}
