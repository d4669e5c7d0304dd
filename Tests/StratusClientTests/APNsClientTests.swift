import Foundation
import StratusClient
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// The client side of APNs: registering a device token, decoding a push's `userInfo`.
@Suite struct APNsClientTests {
    /// What iOS hands the app for a query notification (`NSNumber`s, `String` keys).
    static var queryUserInfo: [AnyHashable: Any] {
        [
            "aps": ["content-available": NSNumber(value: 1)],
            "ck": [
                "cid": "iCloud.com.example.Tests", "nid": "N-1", "ckuserid": "_u",
                "qry": ["sid": "notes", "rid": "r1", "zid": "Inbox", "zoid": "_u", "fo": NSNumber(value: 2), "dbs": NSNumber(value: 2), "af": ["title": "Hi"]],
            ],
        ]
    }

    @Test func userInfoOfAQueryPushDecodes() throws {
        let notification = try CloudNotification(userInfo: Self.queryUserInfo)
        #expect(notification.kind == .query)
        #expect(notification.notificationID == "N-1")
        #expect(notification.containerIdentifier == "iCloud.com.example.Tests")
        #expect(notification.subscriptionID == "notes")
        #expect(notification.queryNotificationReason == .recordUpdated)
        #expect(notification.databaseScope == .private)
        #expect(notification.zoneID == ZoneID(zoneName: "Inbox", ownerRecordName: "_u"))
        #expect(notification.recordID?.recordName == "r1")
        #expect(notification.recordFields == ["title": .string("Hi")])
        #expect(notification.payload.aps?.contentAvailable == 1)
    }

    @Test func userInfoWithoutCKOrWithNonJSONValuesIsRefused() throws {
        let plain = try #require(throws: StratusError.self) { try CloudNotification(userInfo: ["aps": ["alert": "Hello"]]) }
        #expect(plain.code == .invalidArguments)
        let odd = try #require(throws: StratusError.self) { try CloudNotification(userInfo: ["ck": ["cid": Date()]]) }
        #expect(odd.code == .invalidArguments)
        let wrongType = try #require(throws: StratusError.self) { try CloudNotification(userInfo: ["ck": ["qry": ["fo": "two"]]]) }
        #expect(wrongType.code == .invalidArguments)
    }

    @Test func deviceTokenOfTheWrongSizeIsRefusedBeforeAnyRequest() async throws {
        try await SignedInFixture.run { fixture in
            let error = try await #require(throws: StratusError.self) {
                try await fixture.device().registerAPNsDeviceToken(Data(count: 8), environment: .production)
            }
            #expect(error.code == .invalidArguments)
        }
    }

    /// Device B registers its APNs token; device A saves; the push APNs would hand B's app decodes
    /// to the change.
    @Test(.enabled(if: FakeAPNsServer.isEnabled, "run Scripts/fake-apns.sh install (make test does)"))
    func registeredDeviceReceivesAPushWhoseUserInfoDecodesToTheChange() async throws {
        let fake = try await FakeAPNsServer.start()
        defer { fake.stop() }
        try await SignedInFixture.run(configure: { $0.push.apns.endpoint = fake.endpoint }) { fixture in
            try await fixture.server.deliverAPNs(to: fake)
            let deviceToken = Data((0..<32).map { UInt8($0 * 7 & 0xFF) })
            try await fixture.device().registerAPNsDeviceToken(deviceToken, environment: .development)
            let stored = try await fixture.server.store.read { tx in
                try tx.apnsDeviceTokens(of: fixture.user.recordName, container: TestCloudKitServer.container, environment: .development)
            }
            #expect(stored.map(\.token) == [deviceToken.map { String(format: "%02x", $0) }.joined()])

            let deviceA = fixture.device()
            try await deviceA.privateCloudDatabase.save(
                Subscription(subscriptionID: "notes", subscriptionType: .query, query: Query(recordType: "Note"), firesOn: [.create]))
            _ = try await deviceA.privateCloudDatabase.save(Record(recordType: "Note", recordID: RecordID(recordName: "n1")))
            let push = try #require(try await fake.pushes(atLeast: 1).first)
            let payload = try WireCoding.encode(try #require(push.payload))
            let userInfo = try #require(try JSONSerialization.jsonObject(with: payload) as? [AnyHashable: Any])
            let notification = try CloudNotification(userInfo: userInfo)
            #expect(notification.kind == .query)
            #expect(notification.subscriptionID == "notes")
            #expect(notification.recordID?.recordName == "n1")
            #expect(notification.queryNotificationReason == .recordCreated)
            #expect(notification.userRecordName == fixture.user.recordName)
        }
    }
}
