import BenchSupport
import Foundation
import StratusServer
import StratusWire

/// `PushBench --flood`: what other users' subscriptions cost a public-database write (issue 14, finding 6).
///
/// The open-mode user writes one `Post` per request into the public database while 0, then
/// 15,000 subscriptions of 75 other users (200 each, one live courier token each) exist: first
/// query subscriptions on another record type (`Bait`, which no write can fire), then zone
/// subscriptions on the public default zone (which every write fires). The subscriptions are
/// put into the store directly, as if each of the 75 users had made their 200. Each phase also
/// reports how long push fan-out (which runs after the commits) needs to catch up.
enum SubscriptionFlood {
    static let users = 75
    static let perUser = 200

    /// Runs the three phases and prints a table.
    static func run(store: any RecordStore, client: LoopbackHTTPClient, container: String, writes: Int) async throws {
        let database = DatabaseKey(container: container, environment: .development, scope: .public, owner: DatabaseKey.publicOwner)
        var rows: [(String, [Double], Double)] = []
        func phase(_ label: String, _ name: String, count: Int) async throws {
            let samples = try measure(client, container: container, label: name, count: count)
            rows.append((label, samples, try await drained(store)))
        }
        try await phase("0 subscriptions of other users", "none", count: writes)

        try await flood(store, database: database) { index in
            Subscription(subscriptionID: "bait-\(index)", subscriptionType: .query, query: Query(recordType: "Bait"), firesOn: [.create])
        }
        try await phase("15,000 query subscriptions on another type (no candidate)", "bait", count: writes)

        try await flood(store, database: database) { index in
            Subscription(subscriptionID: "bait-\(index)", subscriptionType: .zone, zoneID: .defaultZone)
        }
        try await phase("15,000 zone subscriptions on the written zone (all candidates)", "zone", count: max(5, writes / 20))

        print("\n| public write, one record per request, with … | p50 | p99 | writes | fan-out done after the last write |\n|---|---|---|---|---|")
        for (label, samples, drain) in rows {
            print("| \(label) | \(ms(percentile(samples, 50))) | \(ms(percentile(samples, 99))) | \(samples.count) | \(ms(drain)) |")
        }
    }

    /// Nanoseconds until the push outbox is empty (fan-out has caught up with the writes).
    private static func drained(_ store: any RecordStore) async throws -> Double {
        let start = monotonicNanoseconds()
        while try await !store.read({ try $0.pushOutbox(limit: 1) }).isEmpty {
            try await Task.sleep(for: .milliseconds(1))
        }
        return Double(monotonicNanoseconds() - start)
    }

    /// Replaces every flood subscription by `make(index)` for each of `users` users (`perUser` each), and gives each user a token.
    static func flood(
        _ store: any RecordStore, database: DatabaseKey, users: Int = SubscriptionFlood.users, perUser: Int = SubscriptionFlood.perUser,
        make: @escaping @Sendable (Int) -> Subscription
    ) async throws {
        for user in 0..<users {
            let subscriber = String(format: "_flood%027d", user)
            try await store.write { tx in
                let token = "flood-token-\(database.container)-\(user)"
                if try tx.pushToken(token) == nil {
                    try tx.createPushToken(
                        PushTokenRow(
                            token: token, container: database.container, environment: .development, apnsEnvironment: "development",
                            user: subscriber, createdAt: 0, expiresAt: .max
                        )
                    )
                }
                for index in 0..<perUser {
                    try tx.putSubscription(StoredSubscription(database: database, subscriber: subscriber, subscription: make(index), createdAt: 0))
                }
            }
        }
    }

    /// `count` sequential one-record public creates; each one's round trip in nanoseconds.
    static func measure(_ client: LoopbackHTTPClient, container: String, label: String, count: Int) throws -> [Double] {
        var samples: [Double] = []
        for index in 0..<count {
            let record = Record(recordName: "flood-\(label)-\(index)", recordType: "Post", fields: ["v": .int64(Int64(index))])
            let body = [UInt8](try WireCoding.encode(RecordsModify.Request(operations: [.create(record)])))
            let start = monotonicNanoseconds()
            let reply = try client.send("POST", "/database/1/\(container)/development/public/records/modify", body: body)
            samples.append(Double(monotonicNanoseconds() - start))
            guard reply.status == 200, !reply.body.contains("serverErrorCode") else {
                throw BenchFailure("public save answered \(reply.status): \(reply.text)")
            }
        }
        return samples
    }
}
