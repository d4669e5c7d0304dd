import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// `subscriptions/list`, `subscriptions/lookup` and `subscriptions/modify` (Apple's CloudKit Web Services Reference: “Subscriptions”).
@Suite struct SubscriptionsConformanceTests {
    static let backends = RecordStoreBackend.allCases

    /// Created subscriptions are listed and looked up with their defaults filled in and notification info kept.
    @Test(arguments: backends) func createdSubscriptionsAreListedWithDefaults(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let info = NotificationInfo(alertBody: "New note", soundName: "ping.aiff", shouldBadge: true)
            let results = try await server.modifySubscriptions([
                .create(Subscription(subscriptionID: "q", subscriptionType: .query, query: Query(recordType: "Note"), notificationInfo: info)),
                .create(Subscription(subscriptionID: "z", subscriptionType: .zone)),
            ])
            guard case .subscription(let query)? = results.first else {
                Issue.record("create failed: \(results)")
                return
            }
            #expect(query.zoneWide == true)
            #expect(query.firesOn == [.create, .update, .delete])
            #expect(query.firesOnce == false)
            #expect(query.notificationInfo == info)

            let listed = try await server.send("subscriptions/list", EmptyBody(), as: SubscriptionsResponse.self).subscriptions
            #expect(listed.compactMap { if case .subscription(let s) = $0 { s.subscriptionID } else { nil } } == ["q", "z"])
            let (getStatus, _) = try await RawHTTPConnection.exchange(
                port: server.http.port,
                "GET /database/1/\(TestCloudKitServer.container)/development/private/subscriptions/list HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            ).statusAndBody
            #expect(getStatus == 200)

            let lookup = SubscriptionsLookup.Request(subscriptions: [.init(subscriptionID: "z"), .init(subscriptionID: "nope")])
            let found = try await server.send("subscriptions/lookup", lookup, as: SubscriptionsResponse.self).subscriptions
            guard case .subscription(let zone)? = found.first, case .error(let missing)? = found.last else {
                Issue.record("lookup answered \(found)")
                return
            }
            #expect(zone.zoneID?.zoneName == "_defaultZone")
            #expect(missing.serverErrorCode == .notFound)
            #expect(missing.subscriptionID == "nope")
        }
    }

    /// Update replaces; delete answers `{subscriptionID}` only; updating or deleting a missing one is `NOT_FOUND`.
    @Test(arguments: backends) func updateReplacesAndDeleteAcknowledgesWithTheIDOnly(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.subscribe(Subscription(subscriptionID: "q", subscriptionType: .query, query: Query(recordType: "Note"), firesOn: [.create]))
            let updated = try await server.modifySubscriptions([
                .update(Subscription(subscriptionID: "q", subscriptionType: .query, query: Query(recordType: "Task"), firesOn: [.delete])),
                .update(Subscription(subscriptionID: "missing", subscriptionType: .zone)),
            ])
            guard case .subscription(let q)? = updated.first, case .error(let error)? = updated.last else {
                Issue.record("update answered \(updated)")
                return
            }
            #expect(q.query?.recordType == "Task")
            #expect(q.firesOn == [.delete])
            #expect(error.serverErrorCode == .notFound)

            let (status, body) = try await server.post(
                "subscriptions/modify", #"{"operations":[{"operationType":"delete","subscription":{"subscriptionID":"q"}}]}"#
            )
            #expect(status == 200)
            #expect(String(decoding: body, as: UTF8.self) == #"{"subscriptions":[{"subscriptionID":"q"}]}"#)
            let again = try await server.modifySubscriptions([.delete(subscriptionID: "q")])
            #expect(again.first?.errorCode == .notFound)
        }
    }

    /// Creating an existing ID returns the existing subscription unchanged (Apple's behaviour).
    @Test(arguments: backends) func creatingAnExistingIDReturnsTheExistingOne(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.subscribe(Subscription(subscriptionID: "q", subscriptionType: .query, query: Query(recordType: "Note"), firesOn: [.create]))
            let again = try await server.modifySubscriptions([
                .create(Subscription(subscriptionID: "q", subscriptionType: .query, query: Query(recordType: "Other"), firesOn: [.delete]))
            ])
            guard case .subscription(let existing)? = again.first else {
                Issue.record("create answered \(again)")
                return
            }
            #expect(existing.query?.recordType == "Note")
        }
    }

    /// Invalid subscriptions fail one by one with reasons; a zone subscription needs an existing zone.
    @Test(arguments: backends) func invalidSubscriptionsAreRefusedWithReasons(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            let results = try await server.modifySubscriptions([
                .create(Subscription(subscriptionID: "no-query", subscriptionType: .query)),
                .create(
                    Subscription(
                        subscriptionID: "bad-event", subscriptionType: .query, query: Query(recordType: "Note"),
                        firesOn: [SubscriptionEvent(rawValue: "explode")])),
                .create(Subscription(subscriptionID: "no-zone", subscriptionType: .zone, zoneID: ZoneID(zoneName: "Nowhere"))),
                .create(Subscription(subscriptionID: "db", subscriptionType: SubscriptionType(rawValue: "database"))),
                .create(Subscription(subscriptionID: "fine", subscriptionType: .zone)),
            ])
            let codes = results.map(\.errorCode)
            #expect(codes == [.badRequest, .badRequest, .zoneNotFound, .badRequest, nil])
        }
    }

    /// Subscriptions are per database: the public database's are separate from the private one's.
    @Test(arguments: backends) func subscriptionsArePerDatabase(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.subscribe(Subscription(subscriptionID: "private-one", subscriptionType: .zone))
            try await server.subscribe(Subscription(subscriptionID: "public-one", subscriptionType: .zone), database: "public")
            let privateList = try await server.send("subscriptions/list", EmptyBody(), as: SubscriptionsResponse.self).subscriptions
            let publicList = try await server.send("subscriptions/list", EmptyBody(), as: SubscriptionsResponse.self, database: "public").subscriptions
            #expect(privateList == [.subscription(Subscription(subscriptionID: "private-one", subscriptionType: .zone, zoneID: .defaultZone))])
            #expect(publicList == [.subscription(Subscription(subscriptionID: "public-one", subscriptionType: .zone, zoneID: .defaultZone))])
        }
    }

    /// A public-database subscription notifies its creator with `dbs` 1.
    @Test(arguments: backends) func publicDatabaseSubscriptionNotifiesItsCreator(_ backend: RecordStoreBackend) async throws {
        try await withServer(backend) { server in
            try await server.subscribe(
                Subscription(subscriptionID: "pub", subscriptionType: .query, query: Query(recordType: "Post"), firesOn: [.create]), database: "public"
            )
            let device = try await server.registerDevice()
            _ = try await server.modify([.create(Record(recordName: "p1", recordType: "Post", fields: [:]))], database: "public")
            let notification = try #require(try await device.poll())
            #expect(notification.ck.qry?.dbs == 1)
            #expect(notification.ck.qry?.rid == "p1")
        }
    }
}

extension RawHTTPConnection.Reply {
    var statusAndBody: (Int, Data) { (status ?? 0, body) }
}

extension SubscriptionResult {
    /// The error code of a failed item, or `nil`.
    var errorCode: ServerErrorCode? {
        guard case .error(let error) = self else { return nil }
        return error.serverErrorCode
    }
}
