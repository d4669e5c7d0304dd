import Foundation
import StratusServer
import StratusServerPostgres
import StratusTesting
import StratusWire
import Testing

@Suite(.enabled(if: PostgresScratch.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct PostgresPushRelayTests {
    struct Rollback: Error {}

    static func token(_ name: String) -> PushTokenRow {
        PushTokenRow(
            token: name, container: "iCloud.test", environment: .development, apnsEnvironment: "development", user: "_u", createdAt: 0,
            expiresAt: .max
        )
    }

    /// Node A queues notifications; node B's relay hears the tokens of committed writes only.
    @Test func committedNotificationsWakeAnotherNodeAndRolledBackOnesDoNot() async throws {
        let nodeA = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url())
        let nodeB = try await PostgresRecordStore.open(url: nodeA.url, schema: nodeA.schema, connections: 1)
        let (woken, continuation) = AsyncStream.makeStream(of: String.self)
        let relay = try PostgresPushRelay(store: nodeB) { tokens in
            for token in tokens { continuation.yield(token) }
        }
        try await nodeA.write { tx in
            try tx.createPushToken(Self.token("rolled-back"))
            try tx.createPushToken(Self.token("committed"))
        }
        await #expect(throws: Rollback.self) {
            try await nodeA.write { tx in
                try tx.enqueueNotification([1], token: "rolled-back", maximumBacklog: 10)
                throw Rollback()
            }
        }
        try await nodeA.write { tx in
            try tx.enqueueNotification([2], token: "committed", maximumBacklog: 10)
            try tx.enqueueNotification([3], token: "committed", maximumBacklog: 10)
        }
        var iterator = woken.makeAsyncIterator()
        #expect(await iterator.next() == "committed")
        let queued = try await nodeB.write { tx in try tx.dequeueNotification(token: "committed") }
        #expect(queued == .notification([2]))
        relay.stop()
        continuation.finish()
        try await nodeB.close()
        try await nodeA.close()
    }

    /// Every node reads the secret the first one stored.
    @Test func nodesShareOneTokenSecret() async throws {
        let nodeA = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url())
        let nodeB = try await PostgresRecordStore.open(url: nodeA.url, schema: nodeA.schema, connections: 1)
        let first = try await nodeA.sharedSecret(named: "token-secret") { Data(repeating: 1, count: 32) }
        let second = try await nodeB.sharedSecret(named: "token-secret") { Data(repeating: 2, count: 32) }
        #expect(first == Data(repeating: 1, count: 32))
        #expect(second == first)
        try await nodeB.close()
        try await nodeA.close()
    }
}
