import Foundation
@testable import StratusServer
import StratusTesting
import StratusWire
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Subscriptions firing through the web courier, live over loopback (Apple's CloudKit Web Services Reference: “Subscriptions”, “Push delivery: APNs tokens and the web courier”).
@Suite struct PushDeliveryTests {
    static let backends = RecordStoreBackend.allCases

    static func noteSubscription(_ id: String, firesOn: [SubscriptionEvent], filter: [Filter]? = nil, firesOnce: Bool? = nil) -> Subscription {
        Subscription(
            subscriptionID: id, subscriptionType: .query, query: Query(recordType: "Note", filterBy: filter), firesOn: firesOn,
            firesOnce: firesOnce, notificationInfo: NotificationInfo(shouldSendContentAvailable: true)
        )
    }

    /// Device A saves a matching record; B's parked long-poll returns the notification; B fetches the delta and sees the record.
    @Test(arguments: backends) func savedRecordWakesParkedPollAndDeltaHasIt(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.createZones(["Inbox"])
            let start = try await server.allChanges(zone: "Inbox")
            try await server.subscribe(Self.noteSubscription("notes", firesOn: [.create, .update, .delete]))
            let deviceB = try await server.registerDevice()

            let parked = Task { try await deviceB.poll() }
            try await Task.sleep(for: .milliseconds(200))
            try await server.create("n1", fields: ["title": .string("Hello")], zone: "Inbox")
            let notification = try #require(try await parked.value)

            #expect(notification.aps?.contentAvailable == 1)
            #expect(notification.ck.cid == TestCloudKitServer.container)
            let query = try #require(notification.ck.qry)
            #expect(query.sid == "notes")
            #expect(query.rid == "n1")
            #expect(query.zid == "Inbox")
            #expect(query.fo == 1)
            #expect(query.dbs == 2)
            #expect(notification.ck.nid?.isEmpty == false)

            let delta = try await server.allChanges(zone: "Inbox", from: start.token)
            #expect(delta.records.map(\.recordName) == ["n1"])
            #expect(delta.records.first?.fields?["title"] == .string("Hello"))
        }
    }

    /// Creation, update and deletion each fire only subscriptions that list them; a deletion matches the record as it was.
    @Test(arguments: backends) func eachEventFiresOnlyItsSubscriptions(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend, configure: { $0.push.pollTimeout = .milliseconds(300) }) { server in
            try await server.subscribe(Self.noteSubscription("on-create", firesOn: [.create]))
            try await server.subscribe(Self.noteSubscription("on-update", firesOn: [.update]))
            try await server.subscribe(Self.noteSubscription("on-delete", firesOn: [.delete]))
            let device = try await server.registerDevice()

            try await server.create("n1", fields: ["v": .int64(1)])
            _ = try await server.modify([.forceUpdate(Record(recordName: "n1", fields: ["v": .int64(2)]))])
            _ = try await server.modify([.forceDelete(RecordID(recordName: "n1"))])

            let received = try await device.drain(3)
            #expect(received.map { $0.ck.qry?.sid } == ["on-create", "on-update", "on-delete"])
            #expect(received.map { $0.ck.qry?.fo } == [1, 2, 3])
            #expect(try await device.poll() == nil)
        }
    }

    /// Filters are evaluated against each changed record: only matching records notify.
    @Test(arguments: backends) func filtersSelectWhichRecordsNotify(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend, configure: { $0.push.pollTimeout = .milliseconds(300) }) { server in
            let urgent = [Filter(.field("priority"), .greaterThanOrEquals, .int64(5)), Filter(.field("title"), .beginsWith, .string("Fix"))]
            try await server.subscribe(Self.noteSubscription("urgent", firesOn: [.create, .update, .delete], filter: urgent))
            let device = try await server.registerDevice()

            try await server.create("low", fields: ["priority": .int64(1), "title": .string("Fix the roof")])
            try await server.create("wrong-title", fields: ["priority": .int64(9), "title": .string("Buy milk")])
            try await server.create("match", fields: ["priority": .int64(9), "title": .string("Fix the bug")])
            _ = try await server.modify([.forceDelete(RecordID(recordName: "match"))])

            let received = try await device.drain(2)
            #expect(received.map { $0.ck.qry?.rid } == ["match", "match"])
            #expect(received.map { $0.ck.qry?.fo } == [1, 3])
            #expect(try await device.poll() == nil)
        }
    }

    /// A `firesOnce` subscription fires once and is gone.
    @Test(arguments: backends) func firesOnceFiresOnce(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend, configure: { $0.push.pollTimeout = .milliseconds(300) }) { server in
            try await server.subscribe(Self.noteSubscription("once", firesOn: [.create], firesOnce: true))
            let device = try await server.registerDevice()
            try await server.create("n1", fields: [:])
            try await server.create("n2", fields: [:])
            let received = try await device.drain(1)
            #expect(received.first?.ck.qry?.rid == "n1")
            #expect(try await device.poll() == nil)
            let listed = try await server.send("subscriptions/list", EmptyBody(), as: SubscriptionsResponse.self)
            #expect(listed.subscriptions.isEmpty)
        }
    }

    /// A zone subscription fires for every write in its zone, and not for other zones.
    @Test(arguments: backends) func zoneSubscriptionFiresForEveryChange(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend, configure: { $0.push.pollTimeout = .milliseconds(300) }) { server in
            try await server.createZones(["Work", "Home"])
            try await server.subscribe(Subscription(subscriptionID: "work", subscriptionType: .zone, zoneID: ZoneID(zoneName: "Work")))
            let device = try await server.registerDevice()

            try await server.create("a", type: "Task", fields: [:], zone: "Work")
            try await server.create("b", type: "Note", fields: [:], zone: "Home")
            _ = try await server.modify([.forceUpdate(Record(recordName: "a", fields: ["done": .int64(1)]))], zone: "Work")
            _ = try await server.modify([.forceDelete(RecordID(recordName: "a", zoneID: ZoneID(zoneName: "Work")))], zone: "Work")

            let received = try await device.drain(3)
            #expect(received.allSatisfy { $0.ck.fet?.sid == "work" && $0.ck.fet?.zid == "Work" && $0.ck.qry == nil })
            #expect(received.first?.aps == nil)
            #expect(try await device.poll() == nil)
        }
    }

    /// One change matching N subscriptions queues N notifications that share `nid` and differ in `sid`.
    @Test(arguments: backends) func oneChangeMatchingTwoSubscriptionsSharesTheNotificationID(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.subscribe(Self.noteSubscription("first", firesOn: [.create]))
            try await server.subscribe(Subscription(subscriptionID: "zone", subscriptionType: .zone))
            let device = try await server.registerDevice()
            try await server.create("n1", fields: [:])
            let received = try await device.drain(2)
            #expect(Set(received.compactMap { $0.ck.qry?.sid ?? $0.ck.fet?.sid }) == ["first", "zone"])
            #expect(received[0].ck.nid == received[1].ck.nid)
        }
    }

    /// Every registered device of the user gets its own copy; an unregistered token gets nothing;
    /// the author's own token can be skipped.
    ///
    /// One fan-out transaction queues a change's copies for every device, so once one device has
    /// its copy an empty poll of another proves it got none (the short timeout only ends that poll).
    @Test(arguments: backends) func everyDeviceGetsACopyUnlessSkipped(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend, configure: { $0.push.pollTimeout = .milliseconds(300) }) { server in
            try await server.subscribe(Self.noteSubscription("all", firesOn: [.create]))
            let phone = try await server.registerDevice()
            let laptop = try await server.registerDevice()
            let stranger = try await server.registerDevice(register: false)

            try await server.create("n1", fields: [:])
            #expect(try await phone.next()?.ck.qry?.rid == "n1")
            #expect(try await laptop.poll()?.ck.qry?.rid == "n1")
            #expect(try await stranger.poll() == nil)

            let body = #"{"operations":[{"operationType":"create","record":{"recordName":"n2","recordType":"Note","fields":{}}}]}"#
            var request = URLRequest(url: server.url("records/modify"))
            request.httpMethod = "POST"
            request.httpBody = Data(body.utf8)
            request.setValue(phone.token, forHTTPHeaderField: CloudKitService.skipPushTokenHeader)
            _ = try await URLSession.shared.data(for: request)
            #expect(try await laptop.next()?.ck.qry?.rid == "n2")
            #expect(try await phone.poll() == nil)
        }
    }

    /// A device away for 100 changes gets them all, in order, when it polls again.
    @Test(arguments: backends) func offlineDeviceReceivesEverythingInOrder(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.subscribe(Self.noteSubscription("all", firesOn: [.create]))
            let device = try await server.registerDevice()
            for index in 0..<100 { try await server.create("n\(index)", fields: [:]) }
            let received = try await device.drain(100)
            #expect(received.map { $0.ck.qry?.rid } == (0..<100).map { "n\($0)" })
        }
    }

    /// Past the backlog the oldest notifications are dropped and a resync marker comes first.
    @Test(arguments: backends) func overflowingTheBacklogOwesAResyncMarker(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend, configure: { $0.push.maximumBacklog = 10 }) { server in
            try await server.subscribe(Self.noteSubscription("all", firesOn: [.create]))
            let device = try await server.registerDevice()
            let operations = (0..<25).map { RecordOperation.create(Record(recordName: "n\($0)", recordType: "Note", fields: [:])) }
            _ = try await server.modify(operations)
            let received = try await device.drain(11)
            let marker = try #require(received.first)
            #expect(marker.ck.aux?["resync"] == .bool(true))
            #expect(marker.ck.aux?["dropped"] == .integer(15))
            #expect(marker.ck.met != nil)
            #expect(received.dropFirst().map { $0.ck.qry?.rid } == (15..<25).map { "n\($0)" })
        }
    }

    /// A poll with nothing queued answers 200 with an empty body after the timeout.
    @Test(arguments: backends) func pollTimesOutWithAnEmptyBody(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend, configure: { $0.push.pollTimeout = .milliseconds(400) }) { server in
            let device = try await server.registerDevice()
            let started = ContinuousClock.now
            let reply = try await device.rawPoll()
            #expect(reply.status == 200)
            #expect(reply.body.isEmpty)
            #expect(ContinuousClock.now - started >= .milliseconds(350))
        }
    }

    /// Stopping the server answers parked polls at once instead of holding shutdown for their timeout.
    @Test(arguments: backends) func shutdownReleasesParkedPolls(_ backend: RecordStoreBackend) async throws {
        let server = try await TestCloudKitServer.start(backend: backend, configure: { $0.push.pollTimeout = .seconds(60) })
        let devices = [try await server.registerDevice(), try await server.registerDevice()]
        let polls = devices.map { device in Task { try await device.rawPoll(timeout: 30) } }
        let deadline = ContinuousClock.now + .seconds(20)
        while server.service.courier.waiters.count < 2, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let started = ContinuousClock.now
        await server.stop()
        for poll in polls {
            let reply = try await poll.value
            #expect(reply.status == 200)
            #expect(reply.body.isEmpty)
        }
        // The polls would hold for their 60 s timeout if shutdown did not release them.
        #expect(ContinuousClock.now - started < .seconds(30))
    }

    /// Unknown and expired tokens are refused; a token cannot be registered after it expired.
    @Test(arguments: backends) func expiredTokensStopWorking(_ backend: RecordStoreBackend) async throws {
        let clock = ManualClock(step: 1)
        try await withServer(backend, configure: { $0.now = clock.reader }) { server in
            let device = try await server.registerDevice()
            #expect(device.url.query?.contains("ttl=43200") == true)
            #expect(device.url.path.hasPrefix("/courier/"))
            let missing = CourierDevice(token: "nope", url: try #require(URL(string: server.http.url("/courier/nope").absoluteString)), port: server.http.port)
            #expect(try await missing.rawPoll().status == 404)

            clock.advance(by: 43_200_000)
            #expect(try await device.rawPoll().status == 404)
            let body = #"{"apnsEnvironment":"development","apnsToken":"\#(device.token)"}"#
            #expect(try await server.postDevice("tokens/register", body).status == 404)
        }
    }
}
