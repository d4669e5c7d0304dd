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
/// put into the store directly, as if each of the 75 users had made their 200.
enum SubscriptionFlood {
    static let users = 75
    static let perUser = 200

    /// Runs the three phases and prints a table.
    static func run(store: any RecordStore, client: LoopbackHTTPClient, container: String, writes: Int) async throws {
        let database = DatabaseKey(container: container, environment: .development, scope: .public, owner: DatabaseKey.publicOwner)
        var rows: [(String, [Double])] = []
        rows.append(("0 subscriptions of other users", try measure(client, container: container, label: "none", count: writes)))

        try await flood(store, database: database) { index in
            Subscription(subscriptionID: "bait-\(index)", subscriptionType: .query, query: Query(recordType: "Bait"), firesOn: [.create])
        }
        rows.append(("15,000 query subscriptions on another type (no candidate)", try measure(client, container: container, label: "bait", count: writes)))

        try await flood(store, database: database) { index in
            Subscription(subscriptionID: "bait-\(index)", subscriptionType: .zone, zoneID: .defaultZone)
        }
        let heavy = max(5, writes / 20)
        rows.append(("15,000 zone subscriptions on the written zone (all candidates)", try measure(client, container: container, label: "zone", count: heavy)))

        print("\n| public write, one record per request, with … | p50 | p99 | writes |\n|---|---|---|---|")
        for (label, samples) in rows {
            print("| \(label) | \(ms(percentile(samples, 50))) | \(ms(percentile(samples, 99))) | \(samples.count) |")
        }
    }

    /// Replaces every flood subscription by `make(index)` for each of the 75 users, and gives each user a token.
    private static func flood(_ store: any RecordStore, database: DatabaseKey, make: @escaping @Sendable (Int) -> Subscription) async throws {
        for user in 0..<users {
            let subscriber = String(format: "_flood%027d", user)
            try await store.write { tx in
                if try tx.pushToken("flood-token-\(user)") == nil {
                    try tx.createPushToken(
                        PushTokenRow(
                            token: "flood-token-\(user)", container: database.container, environment: .development, apnsEnvironment: "development",
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
    private static func measure(_ client: LoopbackHTTPClient, container: String, label: String, count: Int) throws -> [Double] {
        var samples: [Double] = []
        for index in 0..<count {
            let record = Record(recordName: "flood-\(label)-\(index)", recordType: "Post", fields: ["v": .int64(Int64(index))])
            let body = [UInt8](try WireCoding.encode(RecordsModify.Request(operations: [.create(record)])))
            let start = monotonicNanoseconds()
            let reply = try client.send("POST", "/database/1/\(container)/development/public/records/modify", body: body)
            samples.append(Double(monotonicNanoseconds() - start))
            guard reply.status == 200, !reply.body.contains("serverErrorCode") else { throw BenchFailure("public save answered \(reply.status): \(reply.text)") }
        }
        return samples
    }
}
