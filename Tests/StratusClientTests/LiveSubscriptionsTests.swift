import Foundation
import StratusClient
import StratusServer
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// Subscriptions and web-courier notifications against the real server on loopback.
@Suite struct LiveSubscriptionsTests {
    /// save → subscription(for:) → allSubscriptions → deleteSubscription.
    @Test func subscriptionRoundTrip() async throws {
        try await SignedInFixture.run { fixture in
            let db = fixture.device().privateCloudDatabase
            let saved = try await db.save(
                Subscription(subscriptionID: "notes", subscriptionType: .query, query: Query(recordType: "Note"), firesOn: [.create]))
            #expect(saved.subscriptionID == "notes")
            try await db.save(Subscription(subscriptionID: "zone", subscriptionType: .zone))
            let fetched = try await db.subscription(for: "notes")
            #expect(fetched.query?.recordType == "Note")
            #expect(Set(try await db.allSubscriptions().map(\.subscriptionID)) == ["notes", "zone"])
            try await db.deleteSubscription(withID: "notes")
            #expect(try await db.allSubscriptions().map(\.subscriptionID) == ["zone"])
            let error = try await #require(throws: StratusError.self) { try await db.subscription(for: "notes") }
            #expect(error.code == .unknownItem)
        }
    }

    /// Device A saves a record; device B's notifications() yields the query and zone notifications.
    @Test func anotherDevicesSaveArrivesAsNotifications() async throws {
        try await SignedInFixture.run { fixture in
            let deviceA = fixture.device()
            let recorder = RecordingTransport(URLSessionTransport())
            let deviceB = fixture.device(transport: recorder)
            let zone = ZoneID(zoneName: "Inbox")
            try await deviceB.privateCloudDatabase.save(RecordZone(zoneID: zone))
            try await deviceB.privateCloudDatabase.save(
                Subscription(subscriptionID: "new-notes", subscriptionType: .query, query: Query(recordType: "Note"), firesOn: [.create]))
            try await deviceB.privateCloudDatabase.save(Subscription(subscriptionID: "inbox", subscriptionType: .zone, zoneID: zone))

            let received = Mutex<[CloudNotification]>([])
            let listening = Task {
                for try await notification in deviceB.notifications(configuration: .fastTests) {
                    let count = received.withLock {
                        $0.append(notification)
                        return $0.count
                    }
                    if count == 2 { return }
                }
            }
            // Save once B's token is registered (pushes go to registered tokens only).
            let deadline = ContinuousClock.now + .seconds(30)
            while !recorder.exchanges.contains(where: { $0.request.url.path.hasSuffix("tokens/register") && $0.status == 200 }),
                ContinuousClock.now < deadline
            {
                try await Task.sleep(for: .milliseconds(20))
            }
            var note = Record(recordType: "Note", recordID: RecordID(recordName: "n1", zoneID: zone))
            note["title"] = "hello"
            try await deviceA.privateCloudDatabase.save(note)
            let timeout = Task {
                try await Task.sleep(for: .seconds(30))
                listening.cancel()
            }
            _ = await listening.result
            timeout.cancel()
            let notifications = received.withLock { $0 }
            let query = try #require(notifications.first { $0.kind == .query })
            #expect(query.subscriptionID == "new-notes")
            #expect(query.recordID == RecordID(recordName: "n1", zoneID: query.zoneID ?? zone))
            #expect(query.zoneID?.zoneName == "Inbox")
            #expect(query.queryNotificationReason == .recordCreated)
            #expect(query.databaseScope == .private)
            #expect(query.containerIdentifier == fixture.device().identifier)
            let zoneNotification = try #require(notifications.first { $0.kind == .recordZone })
            #expect(zoneNotification.subscriptionID == "inbox")
            #expect(zoneNotification.zoneID?.zoneName == "Inbox")
            #expect(zoneNotification.databaseScope == .private)
            #expect(query.notificationID == zoneNotification.notificationID)
        }
    }

    /// Cancelling the iterating task ends the sequence promptly, even while a poll is parked.
    @Test func cancellationStopsPolling() async throws {
        try await SignedInFixture.run { fixture in
            let device = fixture.device()
            let started = ContinuousClock.now
            let listening = Task {
                for try await _ in device.notifications(configuration: .fastTests) {}
            }
            try await Task.sleep(for: .milliseconds(500))
            listening.cancel()
            _ = await listening.result
            #expect(ContinuousClock.now - started < .seconds(15))
        }
    }

    /// Without a signed-in user the sequence ends with notAuthenticated instead of retrying forever.
    @Test func signedOutDeviceGetsNotAuthenticated() async throws {
        try await SignedInFixture.run { fixture in
            let device = Container(
                identifier: fixture.device().identifier, environment: .development, serverURL: fixture.server.http.url(""),
                authentication: .apiToken(fixture.user.apiToken), configuration: .fastTests)
            let error = try await #require(throws: StratusError.self) {
                for try await _ in device.notifications(configuration: .fastTests) {}
            }
            #expect(error.code == .notAuthenticated)
        }
    }

    /// A short-lived token is renewed (tokens/create again) before its ttl, and polling goes on.
    ///
    /// The server's clock stands still, so the first token never expires there: a second
    /// tokens/create can only be the client renewing on its own schedule (90% of the 1 s ttl the
    /// courier URL states), never a recovery from a failed poll, and every poll is answered 200.
    /// The test waits for those events; its deadline is only a guard against a hang.
    @Test func tokenIsRenewedBeforeItsTTL() async throws {
        let serverClock = ManualClock(start: Int64(Date().timeIntervalSince1970 * 1000))
        let configure: (inout ServiceConfiguration) -> Void = {
            $0.now = serverClock.reader
            $0.push.tokenLifetime = 1
            $0.push.pollTimeout = .milliseconds(200)
        }
        try await SignedInFixture.run(configure: configure) { fixture in
            let recorder = RecordingTransport(URLSessionTransport())
            let device = fixture.device(transport: recorder)
            var configuration = NotificationConfiguration.fastTests
            configuration.transport = recorder  // the polls too
            // The server's empty answers (after 200 ms) are keep-alives, not failures that would
            // make the client drop its token and create another.
            configuration.minimumEmptyPollDuration = .milliseconds(100)
            let listening = Task { [configuration] in
                for try await _ in device.notifications(configuration: configuration) {}
            }
            // Renewed, and a poll with the new token answered after the renewal.
            func renewedAndPolling() -> Bool {
                let exchanges = recorder.exchanges
                let creates = exchanges.indices.filter { exchanges[$0].request.url.path.hasSuffix("tokens/create") }
                guard creates.count >= 2 else { return false }
                return exchanges[creates[1]...].contains { $0.request.method == "GET" && $0.status == 200 }
            }
            let renewed = await eventually(timeout: .seconds(120)) { renewedAndPolling() }
            listening.cancel()
            #expect(renewed, "\(recorder.summary)")
            #expect(recorder.exchanges.filter { $0.request.url.path.hasSuffix("tokens/register") }.allSatisfy { $0.status == 200 })
            #expect(recorder.exchanges.filter { $0.request.method == "GET" }.allSatisfy { $0.status == 200 }, "\(recorder.summary)")
        }
    }

    /// Courier payloads decode into the three notification kinds and the resync marker.
    @Test func payloadsDecode() throws {
        let query = try WireCoding.decode(
            CourierNotification.self,
            from: Data(
                #"{"aps":{"alert":{"body":"New"},"badge":1},"ck":{"cid":"c","nid":"n","ckuserid":"_u","qry":{"sid":"s","rid":"r","zid":"Z","zoid":"_u","fo":3,"dbs":1,"af":{"title":"x"}}}}"#
                    .utf8))
        let decoded = CloudNotification(payload: query)
        #expect(decoded.kind == .query)
        #expect(decoded.recordID == RecordID(recordName: "r", zoneID: ZoneID(zoneName: "Z", ownerRecordName: "_u")))
        #expect(decoded.queryNotificationReason == .recordDeleted)
        #expect(decoded.databaseScope == .public)
        #expect(decoded.alertBody == "New")
        #expect(decoded.badge == 1)
        #expect(decoded.recordFields["title"] == .string("x"))
        let resync = CloudNotification(
            payload: try WireCoding.decode(
                CourierNotification.self,
                from: Data(#"{"aps":{"content-available":1},"ck":{"nid":"n","met":{},"aux":{"resync":true,"dropped":3}}}"#.utf8)))
        #expect(resync.kind == .database)
        #expect(resync.isResync)
        #expect(resync.subscriptionID == nil)
        let database = CloudNotification(
            payload: try WireCoding.decode(CourierNotification.self, from: Data(#"{"ck":{"met":{"dbs":3,"sid":"d"}}}"#.utf8)))
        #expect(database.databaseScope == .shared)
        #expect(database.subscriptionID == "d")
        #expect(!database.isResync)
    }
}
