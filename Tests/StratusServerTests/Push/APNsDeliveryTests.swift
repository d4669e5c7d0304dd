import Foundation
@testable import StratusServer
import StratusTesting
import StratusWire
import Testing

/// Pushes through the fake APNs server on loopback: what is sent, how answers are handled.
@Suite(.enabled(if: FakeAPNsServer.isEnabled, "run Scripts/fake-apns.sh install (make test does)"))
struct APNsDeliveryTests {
    static let backends = RecordStoreBackend.allCases

    static func zoneSubscription(_ id: String, zone: String = "_defaultZone", info: NotificationInfo? = nil) -> Subscription {
        Subscription(subscriptionID: id, subscriptionType: .zone, zoneID: ZoneID(zoneName: zone), notificationInfo: info)
    }

    /// Device A saves; the fake receives a silent push for B's token within a second, with the
    /// courier's `ck`, a valid provider token and the headers APNs wants; A's own token gets none.
    ///
    /// Sweeps of the outbox and of the APNs queue are two minutes apart here, so only the path
    /// that sends right after the commit can be within a second. The second runs from the save's
    /// answer (its commit) to the fake's receipt; the save's own round trip is not part of it. The
    /// whole suite runs in parallel on two shared cores, where any step can wait seconds for a
    /// thread (full runs at load 15–38 measured 1.1–2.6 s from the save's first byte for twelve
    /// saves in a row): the bound holds for the fastest of up to twelve saves (each push is
    /// checked in full), so a machine stalled for a stretch of saves does not fail it, and a
    /// delivery path that waits for a sweep does.
    @Test(arguments: backends) func savedRecordReachesTheOtherDeviceAsASilentPushWithinOneSecond(_ backend: RecordStoreBackend) async throws {
        let noSweeps: (inout ServiceConfiguration) -> Void = { configuration in
            configuration.push.outboxSweepInterval = .seconds(120)
            configuration.push.apns.sweepInterval = .seconds(120)
        }
        try await APNsWorld.with(backend, configure: noSweeps) { world in
            let (deviceA, deviceB) = (APNsWorld.deviceToken(1), APNsWorld.deviceToken(2))
            try await world.register(deviceA)
            try await world.register(deviceB)
            try await world.server.subscribe(PushDeliveryTests.noteSubscription("notes", firesOn: [.create]))
            var latencies: [Double] = []
            var roundTrips: [Double] = []
            for attempt in 0..<12 {
                let name = "n\(attempt)"
                let save =
                    #"{"operations":[{"operationType":"create","record":{"recordType":"Note","recordName":"\#(name)","fields":{"title":{"value":"Hi"}}}}]}"#
                let sent = Self.wallClockNanoseconds()
                let reply = try await world.server.exchange("records/modify", save, headers: [RecordChangeEffectsHeader.skip: deviceA])
                let answered = Self.wallClockNanoseconds()
                #expect(reply.status == 200)
                let pushes = try await world.fake.pushes(atLeast: attempt + 1, since: attempt, timeout: .seconds(30))
                let push = try #require(pushes.first)
                try Self.expectSilentPush(push, to: deviceB, record: name, topic: world.fake.topic)
                let received = Int64(clamping: push.received_ns)
                // The push may well arrive before the answer has been read: that counts as no wait.
                latencies.append(Double(max(0, received - answered)) / 1e6)
                roundTrips.append(Double(answered - sent) / 1e6)
                if latencies.last ?? .infinity < 1000 { break }
            }
            #expect((latencies.min() ?? .infinity) < 1000, "commit → APNs took \(latencies) ms; the saves' round trips \(roundTrips) ms")
            // Nothing more comes, and nothing for the author's own device.
            #expect(try await world.fake.pushes(atLeast: latencies.count + 1, timeout: .milliseconds(500)).count == latencies.count)
            let statistics = try await world.statistics { $0.sent == latencies.count }
            #expect(statistics.sent == latencies.count)
            // Fan-out leased each push to this node's idle sender in its own transaction: none waited for a claim.
            #expect(statistics.handedOver == latencies.count)
        }
    }

    /// The wall clock in nanoseconds since 1970, the clock the fake stamps receipts with.
    static func wallClockNanoseconds() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1e9)
    }

    /// What a silent push of query subscription `notes` for the creation of `record` looks like at APNs.
    static func expectSilentPush(_ push: FakeAPNsPush, to token: String, record: String, topic: String) throws {
        #expect(push.token == token)
        #expect(push.problems.isEmpty, "\(push.problems)")
        #expect(push.status == 200)
        #expect(push.headers["apns-push-type"] == "background")
        #expect(push.headers["apns-priority"] == "5")
        #expect(push.headers["apns-topic"] == topic)
        let notification = try #require(push.notification)
        #expect(notification.aps == CourierNotification.APS(contentAvailable: 1))
        #expect(notification.ck.cid == TestCloudKitServer.container)
        #expect(notification.ck.ckuserid == "_00000000000000000000000000000001")
        #expect(notification.ck.nid?.isEmpty == false)
        let query = try #require(notification.ck.qry)
        #expect(query.sid == "notes")
        #expect(query.rid == record)
        #expect(query.fo == 1)
        #expect(query.dbs == 2)
    }

    /// The `ck` of an APNs push is the one the web courier delivers for the same change.
    @Test func apnsCarriesTheCouriersCKDictionary() async throws {
        try await APNsWorld.with { world in
            try await world.register(APNsWorld.deviceToken(3))
            let courier = try await world.server.registerDevice()
            try await world.server.subscribe(Self.zoneSubscription("zone"))
            try await world.server.create("n1", fields: ["title": .string("Hello")])
            let viaCourier = try #require(try await courier.poll())
            let viaAPNs = try #require(try await world.fake.pushes(atLeast: 1).first?.notification)
            #expect(viaAPNs.ck == viaCourier.ck)
            #expect(viaAPNs.ck.fet?.sid == "zone")
        }
    }

    /// A subscription whose notification info asks for an alert gets an alert push (priority 10).
    @Test func alertNotificationInfoSendsAnAlertPush() async throws {
        try await APNsWorld.with { world in
            try await world.register(APNsWorld.deviceToken(4))
            let info = NotificationInfo(alertBody: "A note changed", shouldBadge: true, shouldSendContentAvailable: true)
            try await world.server.subscribe(Self.zoneSubscription("alerts", info: info))
            try await world.server.create("n1", fields: [:])
            let push = try #require(try await world.fake.pushes(atLeast: 1).first)
            #expect(push.problems.isEmpty, "\(push.problems)")
            #expect(push.headers["apns-push-type"] == "alert")
            #expect(push.headers["apns-priority"] == "10")
            let aps = try #require(push.notification?.aps)
            #expect(aps.alert == .text("A note changed"))
            #expect(aps.badge == 1)
            #expect(aps.contentAvailable == 1)
        }
    }

    /// 410 Unregistered removes the token: it is gone from the store and gets no further pushes.
    @Test(arguments: backends) func unregisteredTokenIsRemovedAndGetsNothingMore(_ backend: RecordStoreBackend) async throws {
        try await APNsWorld.with(backend) { world in
            let token = APNsWorld.deviceToken(5)
            try await world.register(token)
            // Every attempt meets 410: an answer the loaded machine lost is retried, by design (a CI
            // run lost one), and the retry must meet the same answer.
            try await world.fake.script(token: token, Array(repeating: .unregistered(), count: 3))
            try await world.server.subscribe(Self.zoneSubscription("zone"))
            try await world.server.create("n1", fields: [:])
            #expect(try await world.fake.pushes(atLeast: 1).first?.status == 410)
            let statistics = try await world.statistics { $0.tokensRemoved == 1 }
            let evidence = await world.evidence()
            #expect(statistics.tokensRemoved == 1, "\(evidence)")
            let left = try await world.server.store.read { tx in
                try tx.apnsDeviceTokens(of: "_00000000000000000000000000000001", container: TestCloudKitServer.container, environment: .development)
            }
            #expect(left.isEmpty)
            let received = try await world.fake.pushes().count
            try await world.server.create("n2", fields: [:])
            try await world.server.service.drainPushOutbox()
            #expect(world.server.service.fanout.statistics.queuedAPNsPushes == 1, "a push was queued for the removed token")
            let after = try await world.fake.pushes(atLeast: received + 1, timeout: .milliseconds(500))
            let evidenceAfter = await world.evidence()
            #expect(after.count == received, "\(evidenceAfter)")
        }
    }

    /// 400 BadDeviceToken removes the token too.
    @Test func badDeviceTokenIsRemoved() async throws {
        try await APNsWorld.with { world in
            let token = APNsWorld.deviceToken(6)
            try await world.register(token)
            // Repeated, as above: a retry after a lost answer meets the same refusal.
            try await world.fake.script(token: token, Array(repeating: .status(400, reason: "BadDeviceToken"), count: 3))
            try await world.server.subscribe(Self.zoneSubscription("zone"))
            try await world.server.create("n1", fields: [:])
            let statistics = try await world.statistics { $0.tokensRemoved == 1 }
            let evidence = await world.evidence()
            #expect(statistics.tokensRemoved == 1, "\(evidence)")
        }
    }

    /// 429 and 503 are retried with backoff, and the push is delivered.
    @Test(arguments: backends) func throttledAndUnavailableAnswersAreRetriedAndDelivered(_ backend: RecordStoreBackend) async throws {
        try await APNsWorld.with(backend) { world in
            let token = APNsWorld.deviceToken(7)
            try await world.register(token)
            try await world.fake.script(token: token, [.status(429, reason: "TooManyRequests"), .status(503, reason: "ServiceUnavailable")])
            try await world.server.subscribe(Self.zoneSubscription("zone"))
            try await world.server.create("n1", fields: [:])
            let pushes = try await world.fake.pushes(atLeast: 3, timeout: .seconds(30))
            #expect(pushes.map(\.status) == [429, 503, 200])
            #expect(Set(pushes.compactMap { $0.notification?.ck.nid }).count == 1)
            let statistics = try await world.statistics { $0.sent == 1 }
            #expect(statistics.sent == 1)
            // A request that got no answer (a loaded machine) is one retry more; the evidence names it.
            let evidence = await world.evidence()
            #expect(statistics.retried == 2 + world.failures.all.count, "\(evidence)")
            #expect(statistics.failed == 0)
        }
    }

    /// 403 ExpiredProviderToken: a new provider token is signed and the push sent again with it.
    @Test func expiredProviderTokenIsRefreshedAndThePushDelivered() async throws {
        try await APNsWorld.with { world in
            let token = APNsWorld.deviceToken(8)
            try await world.register(token)
            try await world.fake.script(token: token, [.expireProviderToken])
            try await world.server.subscribe(Self.zoneSubscription("zone"))
            try await world.server.create("n1", fields: [:])
            let pushes = try await world.fake.pushes(atLeast: 2, timeout: .seconds(30))
            #expect(pushes.map(\.status) == [403, 200])
            #expect(pushes.count == 2 && pushes[0].jwt != pushes[1].jwt)
            #expect(pushes.allSatisfy { $0.problems.isEmpty })
            let statistics = try await world.statistics { $0.sent == 1 }
            #expect(statistics.providerTokenRefreshes == 1)
            // Later pushes reuse the new provider token.
            try await world.server.create("n2", fields: [:])
            let third = try await world.fake.pushes(atLeast: 3, timeout: .seconds(30))
            #expect(third.count == 3 && third[2].jwt == pushes[1].jwt && third[2].status == 200)
        }
    }

    /// One provider token and one connection serve many pushes.
    @Test func providerTokenAndConnectionAreReused() async throws {
        try await APNsWorld.with { world in
            for number in 10..<15 { try await world.register(APNsWorld.deviceToken(number)) }
            try await world.server.subscribe(Self.zoneSubscription("zone"))
            try await world.server.create("n1", fields: [:])
            try await world.server.create("n2", fields: [:])
            let pushes = try await world.fake.pushes(atLeast: 10, timeout: .seconds(30))
            #expect(pushes.count == 10)
            #expect(Set(pushes.compactMap(\.jwt)).count == 1)
            #expect(try await world.fake.connectionCount() == 1)
        }
    }

    /// Without credentials for the container nothing is queued for APNs (the courier still works).
    @Test func containerWithoutCredentialsQueuesNothing() async throws {
        try await APNsWorld.with { world in
            _ = try await world.server.store.write { tx in try tx.deleteAPNsCredentials(container: TestCloudKitServer.container, environment: nil) }
            try await world.register(APNsWorld.deviceToken(16))
            try await world.server.subscribe(Self.zoneSubscription("zone"))
            try await world.server.create("n1", fields: [:])
            try await world.server.service.drainPushOutbox()
            #expect(world.server.service.fanout.statistics.queuedAPNsPushes == 0)
            let queued = try await world.server.store.write { tx in try tx.claimAPNsPushes(limit: 10, now: .max, leaseUntil: .max) }
            #expect(queued.isEmpty)
            #expect(try await world.fake.pushes(atLeast: 1, timeout: .milliseconds(300)).isEmpty)
        }
    }
}

/// The header a write names its author's own push token in.
enum RecordChangeEffectsHeader {
    static let skip = "X-Stratus-Skip-Push-Token"
}
