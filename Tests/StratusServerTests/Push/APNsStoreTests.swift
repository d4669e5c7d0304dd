import Foundation
import StratusServer
import StratusTesting
import StratusWire
import Testing

/// The APNs store contract, on every back end: credentials, device tokens, the leased queue.
@Suite struct APNsStoreTests {
    static let container = "iCloud.com.example.Tests"

    static func withStore(_ backend: RecordStoreBackend, _ body: (any RecordStore) async throws -> Void) async throws {
        try await backend.withStore(prefix: "apns-store") { try await body($0) }
    }

    static func device(_ token: String, owner: String, at time: Int64 = 1) -> APNsDeviceToken {
        APNsDeviceToken(token: token, container: container, environment: .development, apnsEnvironment: .development, owner: owner, registeredAt: time)
    }

    static func push(_ token: String, _ text: String = "{}") -> NewAPNsPush {
        NewAPNsPush(
            token: token, container: container, environment: .development, apnsEnvironment: .development, payload: Array(text.utf8),
            pushType: .background, createdAt: 0
        )
    }

    @Test(arguments: RecordStoreBackend.allCases) func claimsLeaseRowsToOneClaimerUntilSettled(_ backend: RecordStoreBackend) async throws {
        try await Self.withStore(backend) { store in
            _ = try await store.write { tx in try tx.enqueueAPNsPushes([Self.push("aa"), Self.push("bb"), Self.push("cc")], maximumPerToken: 10, leasing: nil) }
            let first = try await store.write { tx in try tx.claimAPNsPushes(limit: 2, now: 1000, leaseUntil: 61_000) }
            let second = try await store.write { tx in try tx.claimAPNsPushes(limit: 10, now: 1000, leaseUntil: 61_000) }
            #expect(first.map(\.push.token) == ["aa", "bb"])
            #expect(second.map(\.push.token) == ["cc"])
            #expect(first.allSatisfy { $0.attempts == 1 })
            #expect(try await store.write { tx in try tx.claimAPNsPushes(limit: 10, now: 2000, leaseUntil: 62_000) }.isEmpty)
            // Settled: one done, one back for later; the third's lease passes.
            try await store.write { tx in
                try tx.finishAPNsPushes([first[0].id])
                try tx.deferAPNsPush(first[1].id, notBefore: 5000)
            }
            #expect(try await store.write { tx in try tx.claimAPNsPushes(limit: 10, now: 4999, leaseUntil: 70_000) }.isEmpty)
            let due = try await store.write { tx in try tx.claimAPNsPushes(limit: 10, now: 61_000, leaseUntil: 120_000) }
            #expect(due.map(\.push.token) == ["bb", "cc"])
            #expect(due.map(\.attempts) == [2, 2])
            #expect(due.first?.push.payload == Array("{}".utf8))
        }
    }

    /// Fan-out's hand-over: the first `limit` new rows come back leased (with their ids and the
    /// payload each was queued with), claims skip them until the lease passes, and a row the
    /// per-token cap dropped at once is not handed over.
    @Test(arguments: RecordStoreBackend.allCases) func enqueueingCanLeaseTheNewRowsToTheCaller(_ backend: RecordStoreBackend) async throws {
        try await Self.withStore(backend) { store in
            let pushes = [Self.push("aa", #"{"n":0}"#), Self.push("aa", #"{"n":1}"#), Self.push("bb", #"{"n":2}"#), Self.push("cc", #"{"n":3}"#)]
            let enqueued = try await store.write { tx in
                try tx.enqueueAPNsPushes(pushes, maximumPerToken: 1, leasing: APNsLease(limit: 3, until: 60_000))
            }
            #expect(enqueued.dropped == 1)
            #expect(enqueued.leased.map { String(decoding: $0.push.payload, as: UTF8.self) } == [#"{"n":1}"#, #"{"n":2}"#])
            #expect(enqueued.leased.allSatisfy { $0.attempts == 1 })
            let claimed = try await store.write { tx in try tx.claimAPNsPushes(limit: 10, now: 1000, leaseUntil: 61_000) }
            #expect(claimed.map(\.push.token) == ["cc"], "a leased row was claimed again")
            try await store.write { tx in try tx.finishAPNsPushes([enqueued.leased[0].id]) }
            let afterLease = try await store.write { tx in try tx.claimAPNsPushes(limit: 10, now: 60_000, leaseUntil: 120_000) }
            #expect(afterLease.map(\.id) == [enqueued.leased[1].id])
            #expect(afterLease.map(\.attempts) == [2])
        }
    }

    @Test(arguments: RecordStoreBackend.allCases) func eachTokenKeepsOnlyItsNewestQueuedPushes(_ backend: RecordStoreBackend) async throws {
        try await Self.withStore(backend) { store in
            let dropped = try await store.write { tx in
                try tx.enqueueAPNsPushes((0..<5).map { Self.push("aa", #"{"n":\#($0)}"#) } + [Self.push("bb")], maximumPerToken: 3, leasing: nil)
            }
            #expect(dropped.dropped == 2)
            let claimed = try await store.write { tx in try tx.claimAPNsPushes(limit: 10, now: 1, leaseUntil: 2) }
            #expect(claimed.map { String(decoding: $0.push.payload, as: UTF8.self) } == [#"{"n":2}"#, #"{"n":3}"#, #"{"n":4}"#, "{}"])
        }
    }

    @Test(arguments: RecordStoreBackend.allCases) func aTokenThatChangesHandsDropsThePreviousUsersQueuedPushes(_ backend: RecordStoreBackend) async throws {
        try await Self.withStore(backend) { store in
            try await store.write { tx in
                _ = try tx.registerAPNsDeviceToken(Self.device("aa", owner: "_alice"), maximumPerUser: 5)
                _ = try tx.enqueueAPNsPushes([Self.push("aa")], maximumPerToken: 10, leasing: nil)
                _ = try tx.registerAPNsDeviceToken(Self.device("aa", owner: "_alice", at: 2), maximumPerUser: 5)
            }
            // The same user registering again keeps what is queued.
            #expect(try await store.read { tx in try tx.apnsDeviceTokens(of: "_alice", container: Self.container, environment: .development) }.count == 1)
            try await store.write { tx in _ = try tx.registerAPNsDeviceToken(Self.device("aa", owner: "_bob", at: 3), maximumPerUser: 5) }
            #expect(try await store.write { tx in try tx.claimAPNsPushes(limit: 10, now: 1, leaseUntil: 2) }.isEmpty)
            #expect(try await store.read { tx in try tx.apnsDeviceTokens(of: "_alice", container: Self.container, environment: .development) }.isEmpty)
            #expect(
                try await store.read { tx in try tx.apnsDeviceTokens(of: "_bob", container: Self.container, environment: .development) }.map(\.token) == ["aa"])
        }
    }

    @Test(arguments: RecordStoreBackend.allCases) func invalidTokensGoUnlessRegisteredAgainSince(_ backend: RecordStoreBackend) async throws {
        try await Self.withStore(backend) { store in
            try await store.write { tx in
                _ = try tx.registerAPNsDeviceToken(Self.device("aa", owner: "_u", at: 100), maximumPerUser: 5)
                _ = try tx.enqueueAPNsPushes([Self.push("aa")], maximumPerToken: 10, leasing: nil)
            }
            let kept = try await store.write { tx in
                try tx.deleteAPNsDeviceToken("aa", apnsEnvironment: .development, container: Self.container, environment: .development, invalidSince: 99)
            }
            #expect(!kept)
            let removed = try await store.write { tx in
                try tx.deleteAPNsDeviceToken("aa", apnsEnvironment: .development, container: Self.container, environment: .development, invalidSince: 100)
            }
            #expect(removed)
            #expect(try await store.read { tx in try tx.apnsDeviceTokens(of: "_u", container: Self.container, environment: .development) }.isEmpty)
            #expect(try await store.write { tx in try tx.claimAPNsPushes(limit: 10, now: 1, leaseUntil: 2) }.isEmpty)
        }
    }

    @Test(arguments: RecordStoreBackend.allCases) func credentialsArePerContainerEnvironment(_ backend: RecordStoreBackend) async throws {
        try await Self.withStore(backend) { store in
            let credentials = APNsCredentials(
                container: Self.container, environment: .production, keyID: "ABC123DEFG", teamID: "TEAM123456", topic: "com.example.A",
                privateKeyPEM: "pem", updatedAt: 5
            )
            try await store.write { tx in
                try tx.putAPNsCredentials(credentials)
                var other = credentials
                other.environment = .development
                other.topic = "com.example.B"
                try tx.putAPNsCredentials(other)
                other.topic = "com.example.C"
                try tx.putAPNsCredentials(other)
            }
            #expect(try await store.read { tx in try tx.apnsCredentials(container: Self.container, environment: .production) } == credentials)
            #expect(try await store.read { tx in try tx.allAPNsCredentials() }.map(\.topic) == ["com.example.C", "com.example.A"])
            #expect(try await store.write { tx in try tx.deleteAPNsCredentials(container: Self.container, environment: .development) } == 1)
            #expect(try await store.write { tx in try tx.deleteAPNsCredentials(container: Self.container, environment: nil) } == 1)
            #expect(try await store.read { tx in try tx.allAPNsCredentials() }.isEmpty)
        }
    }
}
