import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// APNs answers come from the network: garbage, a huge body or no answer at all never wedge
/// delivery to other devices, and never hold up a write.
@Suite(.enabled(if: FakeAPNsServer.isEnabled, "run Scripts/fake-apns.sh install (make test does)"))
struct APNsMisbehavingServerTests {
    /// One token's pushes stall, then get a 5 MB body, then garbage; another token's push arrives at
    /// once, writes stay fast, and the stalled token's push is delivered in the end.
    @Test func stalledHugeAndGarbageAnswersNeverWedgeDelivery() async throws {
        try await APNsWorld.with(configure: { $0.push.apns.requestTimeout = .seconds(1) }) { world in
            let (slow, healthy) = (APNsWorld.deviceToken(50), APNsWorld.deviceToken(51))
            try await world.register(slow)
            try await world.fake.script(token: slow, [.stall, .huge(200, size: 5 << 20), .raw(500, body: "\u{1}\u{2}not json at all")])
            try await world.server.subscribe(APNsDeliveryTests.zoneSubscription("zone"))
            try await world.server.create("n1", fields: [:])
            #expect(try await world.fake.pushes(atLeast: 1).first?.token == slow)

            // While that push stalls: a new device's push goes straight through, and writes are not held up.
            try await world.register(healthy)
            let started = ContinuousClock.now
            try await world.server.create("n2", fields: [:])
            let writeTime = ContinuousClock.now - started
            #expect(writeTime < .seconds(1), "a write took \(writeTime) while APNs stalled")
            let deadline = ContinuousClock.now + .seconds(1)
            var healthyPush: FakeAPNsPush?
            while healthyPush == nil, ContinuousClock.now < deadline {
                healthyPush = try await world.fake.pushes(atLeast: 0, timeout: .zero).first { $0.token == healthy }
                if healthyPush == nil { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(healthyPush?.status == 200, "the healthy device waited for the stalled one")

            // The stalled push: timeout, too large, garbage — each retried — then delivered.
            let statistics = try await world.statistics(within: .seconds(20)) { $0.sent >= 3 }
            let slowPushes = try await world.fake.pushes().filter { $0.token == slow }
            #expect(slowPushes.last?.status == 200)
            #expect(slowPushes.count >= 4)
            #expect(statistics.failed == 0)
            #expect(statistics.retried >= 3)
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

    /// A server that never answers with HTTP/2 over a trusted certificate gets nothing: without the
    /// test CA the push is not sent (TLS fails) and is retried, never delivered in clear.
    @Test func untrustedCertificateIsRefused() async throws {
        let fake = try await FakeAPNsServer.start()
        defer { fake.stop() }
        let server = try await TestCloudKitServer.start { APNsWorld.configure(&$0, fake: fake) }
        do {
            try await fake.storeCredentials(in: server.store, container: TestCloudKitServer.container)
            server.service.startAPNsDelivery(transport: try CurlAPNsTransportFactory.withoutTestCA())
            let world = APNsWorld(server: server, fake: fake)
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
