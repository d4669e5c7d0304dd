import Foundation
@testable import StratusServer
import StratusTesting
import StratusWire
import Testing

extension AttackSuite {
    /// Finding 6: one self-registered user with ~15,000 subscriptions made every public write
    /// slow, because every write evaluated every subscription inside the single writer.
    @Suite("06 subscription flood") struct SubscriptionFloodAttacks {
        static let backends = RecordStoreBackend.allCases

        static func zoneSubscription(_ id: String) -> String {
            #"{"subscriptionID":"\#(id)","subscriptionType":"zone"}"#
        }

        /// A user cannot make more subscriptions in a database than the cap (200 by default): the
        /// one past it fails with `QUOTA_EXCEEDED` and a reason naming the limit; others still may.
        @Test(arguments: backends) func oneUserCannotCreateMoreSubscriptionsThanTheCap(_ backend: RecordStoreBackend) async throws {
            try await PushAttack.withServer(backend) { server in
                let attacker = try await server.signedInUser("attacker@example.com")
                let victim = try await server.signedInUser("victim@example.com")
                let cap = PushConfiguration().maximumSubscriptionsPerUser
                #expect(cap == 200)
                let operations = (0..<cap).map { #"{"operationType":"create","subscription":\#(Self.zoneSubscription("s\($0)"))}"# }
                let filled = try await server.exchange(
                    "subscriptions/modify", #"{"operations":[\#(operations.joined(separator: ","))]}"#, database: "public", query: attacker.query
                )
                #expect(filled.status == 200, "\(filled.text.prefix(300))")
                #expect(filled.itemErrorCodes("subscriptions") == Array(repeating: nil, count: cap))

                let past = try await PushAttack.subscribe(Self.zoneSubscription("one-too-many"), as: attacker, on: server)
                #expect(past.itemErrorCodes("subscriptions") == ["QUOTA_EXCEEDED"], "\(past.text)")
                let reason = try #require(past.itemReasons("subscriptions").first ?? nil)
                #expect(reason.contains("\(cap)"), "the reason names the limit: \(reason)")

                // The cap is per user and database: the attacker's private database and another user are unaffected.
                let own = try await PushAttack.subscribe(Self.zoneSubscription("private"), as: attacker, on: server, database: "private")
                #expect(own.itemErrorCodes("subscriptions") == [nil], "\(own.text)")
                let other = try await PushAttack.subscribe(Self.zoneSubscription("victim"), as: victim, on: server)
                #expect(other.itemErrorCodes("subscriptions") == [nil], "\(other.text)")
                // Replacing an existing subscription is not a new one.
                let again = try await PushAttack.subscribe(Self.zoneSubscription("s0"), as: attacker, on: server)
                #expect(again.itemErrorCodes("subscriptions") == [nil], "\(again.text)")
            }
        }

        /// The same public writes with 10 and with 10,000 other users' subscriptions that none of
        /// them fire (50 users with 200 each), on two servers side by side, in interleaved rounds:
        /// the flooded server's median write stays within 2× of the quiet one's, and the writer's
        /// own subscription still delivers every write, in order.
        ///
        /// The ratio, not a latency: both medians are measured in the same run under the same load,
        /// so a loaded machine slows both alike. Issue 20's target is 1.3×; the bound is 2× because
        /// a median of a few-millisecond write on two shared cores moves by more than 30% from round
        /// to round, while the defect this guards against (every write evaluating every
        /// subscription inside the single writer) costs far more than 2×.
        ///
        /// Under a sanitizer the flood is 2,000 (10 users): that run looks for races on the same
        /// paths, and making 10,000 took the PostgreSQL case past its time limit on two loaded cores.
        @Test(.timeLimit(.minutes(TestTimeScale.isSlowed ? 15 : 5)), arguments: backends) func floodOfOtherUsersSubscriptionsKeepsPublicWritesFast(
            _ backend: RecordStoreBackend
        ) async throws {
            try await PushAttack.withServer(backend) { quiet in
                try await PushAttack.withServer(backend) { flooded in
                    try await Self.flood(quiet, baitUsers: 1, zoneUsers: 0, perUser: 10)
                    let baitUsers = TestTimeScale.isSlowed ? 10 : 50
                    try await Self.flood(flooded, baitUsers: baitUsers, zoneUsers: 0, perUser: 200)
                    var writers: [WriteTimer] = []
                    for server in [quiet, flooded] {
                        let victim = try await server.signedInUser("victim@example.com")
                        let device = try await PushAttack.watchCreations(of: "Post", id: "mine", as: victim, on: server)
                        writers.append(WriteTimer(server: server, user: victim, device: device))
                    }
                    // Rounds of a few writes on each server in turn, the order swapped every round,
                    // so that both see the same load at about the same time.
                    let rounds = 10
                    let batch = 4
                    for round in 0..<rounds {
                        for writer in round.isMultiple(of: 2) ? writers : writers.reversed() {
                            try await writer.write(batch)
                        }
                    }
                    let (quietMedian, floodedMedian) = (writers[0].median, writers[1].median)
                    let ratio = floodedMedian / quietMedian
                    print(
                        "06 flood (\(backend)): public write median \(floodedMedian) with \(baitUsers * 200) other subscriptions, \(quietMedian) with 10: ratio \(ratio)"
                    )
                    #expect(ratio <= 2, "write median \(floodedMedian) with \(baitUsers * 200) subscriptions of other users against \(quietMedian) with 10")

                    let written = writers[1].written
                    var delivered: [String] = []
                    for _ in written {
                        guard let notification = try await writers[1].device.notification(timeout: 60) else { break }
                        delivered.append(notification.ck.qry?.rid ?? "?")
                    }
                    #expect(delivered == written)
                }
            }
        }

        /// Times one user's public writes on one server.
        final class WriteTimer {
            let server: TestCloudKitServer
            let user: TestCloudKitServer.SignedInUser
            let device: PushAttack.Device
            private(set) var latencies: [Duration] = []
            private(set) var written: [String] = []

            init(server: TestCloudKitServer, user: TestCloudKitServer.SignedInUser, device: PushAttack.Device) {
                self.server = server
                self.user = user
                self.device = device
            }

            /// Creates `count` records, one request each, timing each request.
            func write(_ count: Int) async throws {
                for _ in 0..<count {
                    let name = "post-\(written.count)"
                    let started = ContinuousClock.now
                    let reply = try await PushAttack.create(name, type: "Post", as: user, on: server)
                    latencies.append(ContinuousClock.now - started)
                    written.append(name)
                    #expect(reply.itemErrorCodes("records") == [nil], "\(reply.text.prefix(300))")
                }
            }

            var median: Duration { latencies.sorted()[latencies.count / 2] }
        }

        /// 15,000 subscriptions of other users on a record type nobody writes: a write looks at
        /// none of them — fan-out evaluates only the one candidate subscription per write, and a
        /// write no subscription could fire on leaves no outbox entry at all.
        @Test(arguments: backends) func writesLookOnlyAtCandidateSubscriptions(_ backend: RecordStoreBackend) async throws {
            try await PushAttack.withServer(backend) { server in
                let victim = try await server.signedInUser("victim@example.com")
                try await Self.flood(server, baitUsers: 75, zoneUsers: 0, perUser: 200)
                let device = try await PushAttack.watchCreations(of: "Post", id: "mine", as: victim, on: server)
                for index in 0..<10 {
                    #expect(try await PushAttack.create("post-\(index)", type: "Post", as: victim, on: server).itemErrorCodes("records") == [nil])
                }
                for index in 0..<10 {
                    #expect(try await device.notification()?.ck.qry?.rid == "post-\(index)")
                }
                try await server.service.drainPushOutbox()
                await server.service.fanout.idle()
                let statistics = server.service.fanout.statistics
                #expect(statistics.evaluatedSubscriptions == 10, "fan-out evaluated \(statistics.evaluatedSubscriptions) subscriptions for 10 writes")
                #expect(statistics.finishedEntries == 10)

                #expect(try await PushAttack.create("other", type: "Other", as: victim, on: server).itemErrorCodes("records") == [nil])
                #expect(try await server.store.read { try $0.pushOutbox(limit: 10) }.isEmpty)
                try await server.service.drainPushOutbox()
                await server.service.fanout.idle()
                #expect(server.service.fanout.statistics == statistics, "a write nobody subscribed to caused fan-out work")
            }
        }

        /// Puts `perUser` subscriptions for each of `baitUsers + zoneUsers` other users straight into
        /// the store (the cap refuses more per user over the wire) and gives each a live courier
        /// token: the bait users' subscriptions watch a record type nobody writes, the zone users'
        /// the public default zone, so every public write fires them.
        static func flood(_ server: TestCloudKitServer, baitUsers: Int, zoneUsers: Int, perUser: Int) async throws {
            let database = DatabaseKey(container: TestCloudKitServer.container, environment: .development, scope: .public, owner: DatabaseKey.publicOwner)
            for user in 0..<(baitUsers + zoneUsers) {
                let subscriber = String(format: "_flood%027d", user)
                try await server.store.write { tx in
                    try tx.createPushToken(
                        PushTokenRow(
                            token: "flood-\(user)", container: database.container, environment: .development, apnsEnvironment: "development",
                            user: subscriber, createdAt: 0, expiresAt: .max
                        )
                    )
                    for index in 0..<perUser {
                        let subscription =
                            user < baitUsers
                            ? Subscription(subscriptionID: "bait-\(index)", subscriptionType: .query, query: Query(recordType: "Bait"), firesOn: [.create])
                            : Subscription(subscriptionID: "zone-\(index)", subscriptionType: .zone, zoneID: .defaultZone)
                        try tx.putSubscription(StoredSubscription(database: database, subscriber: subscriber, subscription: subscription, createdAt: 0))
                    }
                }
            }
        }
    }
}
