import Foundation
import StratusLogging
@testable import StratusServer
import StratusTesting
import StratusWire
import Testing

/// The push outbox and the subscriptions' candidate index, on every back end (design note 0007).
@Suite struct PushOutboxTests {
    static let backends = RecordStoreBackend.allCases
    static let publicDB = DatabaseKey(container: TestCloudKitServer.container, environment: .development, scope: .public, owner: DatabaseKey.publicOwner)

    static func put(_ tx: any RecordStoreWriter, _ subscriber: String, _ subscription: Subscription) throws {
        try tx.putSubscription(StoredSubscription(database: publicDB, subscriber: subscriber, subscription: subscription, createdAt: 0))
    }

    static func query(_ id: String, type: String, zone: String? = nil, zoneWide: Bool? = nil) -> Subscription {
        Subscription(
            subscriptionID: id, subscriptionType: .query, query: Query(recordType: type), zoneID: zone.map { ZoneID(zoneName: $0) },
            zoneWide: zoneWide
        )
    }

    static func token(_ name: String, user: String) -> PushTokenRow {
        PushTokenRow(
            token: name, container: TestCloudKitServer.container, environment: .development, apnsEnvironment: "development", user: user,
            createdAt: 0, expiresAt: .max
        )
    }

    /// Candidates are the subscriptions watching the type (in that zone or every zone) and the zone
    /// subscriptions of that zone, in (subscriber, ID) order, after a cursor, at most a limit.
    @Test(arguments: backends) func candidatesAreTheSubscriptionsThatCouldFire(_ backend: RecordStoreBackend) async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-outbox")
        defer { directory.remove() }
        let store = try await backend.makeStore(in: directory)
        try await store.write { tx in
            try Self.put(tx, "_b", Self.query("post-anywhere", type: "Post"))
            try Self.put(tx, "_a", Self.query("post-default", type: "Post", zoneWide: false))
            try Self.put(tx, "_a", Self.query("post-elsewhere", type: "Post", zone: "Elsewhere"))
            try Self.put(tx, "_c", Self.query("bait", type: "Bait"))
            try Self.put(tx, "_c", Subscription(subscriptionID: "zone", subscriptionType: .zone))
            try Self.put(tx, "_c", Subscription(subscriptionID: "other-zone", subscriptionType: .zone, zoneID: ZoneID(zoneName: "Elsewhere")))
        }
        let keys = { (types: Set<String>, cursor: SubscriptionKey?, limit: Int) in
            try await store.read { tx in
                try tx.subscriptionCandidates(in: Self.publicDB, zoneName: ZoneID.defaultZoneName, recordTypes: types, after: cursor, limit: limit)
                    .map { "\($0.subscriber)/\($0.subscription.subscriptionID)" }
            }
        }
        #expect(try await keys(["Post"], nil, 10) == ["_a/post-default", "_b/post-anywhere", "_c/zone"])
        #expect(try await keys(["Post", "Bait"], nil, 10) == ["_a/post-default", "_b/post-anywhere", "_c/bait", "_c/zone"])
        #expect(try await keys(["Note"], nil, 10) == ["_c/zone"])
        #expect(try await keys(["Post"], nil, 2) == ["_a/post-default", "_b/post-anywhere"])
        #expect(try await keys(["Post"], SubscriptionKey(subscriber: "_a", subscriptionID: "post-default"), 10) == ["_b/post-anywhere", "_c/zone"])
        try await store.close()
    }

    /// The question every write asks per changed type — is any subscription watching? — answers
    /// yes for each kind of watch alone (the type on the zone, the type on every zone, a zone
    /// subscription of the zone) and no for watches of other types, zones or databases, exactly
    /// as the candidates do.
    @Test(arguments: backends) func aTypeIsWatchedExactlyWhenItHasCandidates(_ backend: RecordStoreBackend) async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-outbox")
        defer { directory.remove() }
        let store = try await backend.makeStore(in: directory)
        let privateDB = DatabaseKey(container: TestCloudKitServer.container, environment: .development, scope: .private, owner: "_someone")
        let cases: [(String, [Subscription], Bool)] = [
            ("nothing", [], false),
            ("the type on the zone", [Self.query("s", type: "Post", zone: "Home")], true),
            ("the type on every zone", [Self.query("s", type: "Post")], true),
            ("a zone subscription of the zone", [Subscription(subscriptionID: "s", subscriptionType: .zone, zoneID: ZoneID(zoneName: "Home"))], true),
            (
                "other types and zones only",
                [
                    Self.query("a", type: "Bait"), Self.query("b", type: "Post", zone: "Elsewhere"),
                    Subscription(subscriptionID: "c", subscriptionType: .zone, zoneID: ZoneID(zoneName: "Elsewhere")),
                ],
                false
            ),
        ]
        for (name, subscriptions, watched) in cases {
            let answers = try await store.write { tx -> (Bool, Bool, Bool) in
                for subscription in subscriptions { try Self.put(tx, "_sub", subscription) }
                let asked = try tx.hasSubscription(watching: "Post", in: Self.publicDB, zoneName: "Home")
                let candidates = try tx.subscriptionCandidates(in: Self.publicDB, zoneName: "Home", recordTypes: ["Post"], after: nil, limit: 1)
                let otherDatabase = try tx.hasSubscription(watching: "Post", in: privateDB, zoneName: "Home")
                for subscription in subscriptions {
                    _ = try tx.deleteSubscription(id: subscription.subscriptionID, in: Self.publicDB, subscriber: "_sub")
                }
                return (asked, !candidates.isEmpty, otherDatabase)
            }
            #expect(answers.0 == watched, "\(name)")
            #expect(answers.0 == answers.1, "\(name): the candidates say otherwise")
            #expect(!answers.2, "\(name): another database's write is not watched")
        }
        try await store.close()
    }

    /// Advancing an entry is a compare-and-set on its cursor: a stale expectation changes nothing.
    @Test(arguments: backends) func advancingAnEntryIsACompareAndSet(_ backend: RecordStoreBackend) async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-outbox")
        defer { directory.remove() }
        let store = try await backend.makeStore(in: directory)
        let key = SubscriptionKey(subscriber: "_a", subscriptionID: "s")
        try await store.write { tx in
            try tx.appendPushOutbox(NewPushOutboxEntry(database: Self.publicDB, zoneName: "_defaultZone", payload: [1, 2], createdAt: 5))
            try tx.appendPushOutbox(NewPushOutboxEntry(database: Self.publicDB, zoneName: "_defaultZone", payload: [3], createdAt: 6))
        }
        let entries = try await store.read { try $0.pushOutbox(limit: 10) }
        #expect(entries.map(\.payload) == [[1, 2], [3]])
        #expect(entries.first?.cursor == nil)
        #expect(entries.first?.database == Self.publicDB)
        let first = try #require(entries.first?.id)
        #expect(try await store.write { try $0.advancePushOutbox(id: first, from: nil, to: .handled(through: key)) })
        #expect(try await store.write { try !$0.advancePushOutbox(id: first, from: nil, to: .finished) })
        #expect(try await store.read { try $0.pushOutbox(limit: 1) }.first?.cursor == key)
        #expect(try await store.write { try $0.advancePushOutbox(id: first, from: key, to: .finished) })
        #expect(try await store.read { try $0.pushOutbox(limit: 10) }.map(\.payload) == [[3]])
        try await store.close()
    }

    /// A batch of notifications past the backlog keeps the newest and counts the rest; a missing token takes nothing.
    @Test(arguments: backends) func enqueueingABatchKeepsTheNewestWithinTheBacklog(_ backend: RecordStoreBackend) async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-outbox")
        defer { directory.remove() }
        let store = try await backend.makeStore(in: directory)
        try await store.write { tx in try tx.createPushToken(Self.token("t", user: "_a")) }
        #expect(try await store.write { try $0.enqueueNotifications([[1], [2]], token: "t", maximumBacklog: 3) })
        #expect(try await store.write { try $0.enqueueNotifications([[3], [4], [5], [6]], token: "t", maximumBacklog: 3) })
        #expect(try await store.write { try !$0.enqueueNotifications([[9]], token: "gone", maximumBacklog: 3) })
        var delivered: [DequeuedNotification] = []
        while let item = try await store.write({ try $0.dequeueNotification(token: "t") }) { delivered.append(item) }
        #expect(delivered == [.resync(dropped: 3), .notification([4]), .notification([5]), .notification([6])])
        try await store.close()
    }

    /// A token is registered only by its creator, only in its container environment; legacy
    /// tokens without an owner only by the user already bound to them. Live tokens are counted per owner.
    @Test(arguments: backends) func onlyATokensOwnerBindsIt(_ backend: RecordStoreBackend) async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-outbox")
        defer { directory.remove() }
        let store = try await backend.makeStore(in: directory)
        let container = TestCloudKitServer.container
        let owned = PushTokenRow(
            token: "owned", container: container, environment: .development, apnsEnvironment: "development", user: nil, owner: "_a",
            createdAt: 0, expiresAt: .max
        )
        let expired = PushTokenRow(
            token: "expired", container: container, environment: .development, apnsEnvironment: "development", user: nil, owner: "_a",
            createdAt: 0, expiresAt: 10
        )
        try await store.write { tx in
            try tx.createPushToken(owned)
            try tx.createPushToken(expired)
            try tx.createPushToken(Self.token("legacy", user: "_a"))
        }
        let bind = { (token: String, user: String, environment: Environment) in
            try await store.write { try $0.bindPushToken(token, to: user, container: container, environment: environment, now: 100) }
        }
        #expect(try await !bind("owned", "_b", .development))
        #expect(try await !bind("owned", "_a", .production))
        #expect(try await store.write { try !$0.bindPushToken("owned", to: "_a", container: "iCloud.other", environment: .development, now: 100) })
        #expect(try await bind("owned", "_a", .development))
        #expect(try await bind("owned", "_a", .development))
        #expect(try await !bind("expired", "_a", .development))
        #expect(try await !bind("legacy", "_b", .development))
        #expect(try await bind("legacy", "_a", .development))
        #expect(try await store.read { try $0.pushToken("owned") }?.user == "_a")
        #expect(try await store.read { try $0.pushToken("owned") }?.owner == "_a")
        #expect(try await store.read { try $0.pushTokenCount(ownedBy: "_a", container: container, environment: .development, now: 100) } == 1)
        try await store.close()
    }

    /// One write fired by more subscriptions than one fan-out batch holds goes out in several
    /// batches (a cursor between them): every subscriber gets exactly one copy, with the change's one `nid`.
    @Test(arguments: backends) func aLargeFanOutIsSplitIntoBatchesAndLosesNothing(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend, configure: { $0.push.fanoutBatchSize = 4 }) { server in
            let users = (0..<10).map { String(format: "_fan%029d", $0) }
            try await server.store.write { tx in
                for user in users {
                    try Self.put(tx, user, Subscription(subscriptionID: "zone", subscriptionType: .zone))
                    try tx.createPushToken(Self.token("token" + user, user: user))
                }
            }
            _ = try await server.modify([.create(Record(recordName: "p1", recordType: "Post", fields: [:]))], database: "public")
            try await server.service.drainPushOutbox()
            await server.service.fanout.idle()
            #expect(server.service.fanout.statistics.batches >= 3)
            var notificationIDs: Set<String> = []
            for user in users {
                var items: [DequeuedNotification] = []
                while let item = try await server.store.write({ try $0.dequeueNotification(token: "token" + user) }) { items.append(item) }
                #expect(items.count == 1, "\(user) received \(items.count) notifications")
                guard case .notification(let payload)? = items.first else { continue }
                let notification = try WireCoding.decode(CourierNotification.self, from: Data(payload))
                #expect(notification.ck.ckuserid == user)
                notificationIDs.formUnion(notification.ck.nid.map { [$0] } ?? [])
            }
            #expect(notificationIDs.count == 1)
        }
    }

    /// A node that stops between a write's commit and its fan-out loses nothing: the change waits
    /// in the outbox, and the next drain (a restarted node's, or another node's sweep) delivers it.
    @Test(arguments: backends) func aChangeCommittedButNotFannedOutIsDeliveredLater(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend, configure: { $0.push.pollTimeout = .milliseconds(300) }) { server in
            try await server.subscribe(PushDeliveryTests.noteSubscription("notes", firesOn: [.create]))
            let device = try await server.registerDevice()
            server.service.fanout.close()  // as if the process died right after the commit
            try await server.create("n1", fields: [:])
            #expect(try await server.store.read { try $0.pushOutbox(limit: 10) }.count == 1)
            #expect(try await device.poll() == nil)

            let restarted = PushFanout(store: server.store, configuration: PushConfiguration(), now: { 0 }, logger: .disabled) { _ in }
            try await restarted.drain()
            #expect(try await server.store.read { try $0.pushOutbox(limit: 10) }.isEmpty)
            #expect(try await device.poll()?.ck.qry?.rid == "n1")
        }
    }
}
