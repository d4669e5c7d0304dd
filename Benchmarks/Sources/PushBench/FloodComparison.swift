import BenchSupport
import Foundation
import StratusServer
import StratusWire

/// `PushBench --flood-compare`: issue 20's push fan-out target — a public write's latency with 10
/// and with 10,000 other users' subscriptions that cannot match it (query subscriptions on a
/// record type nobody writes), p50 within 1.3×.
///
/// The two cases are two containers of one server (one store, one process, one load): the quiet
/// one's public database has `--quiet` subscriptions (default 10), the flooded one's `--flooded`
/// (default 10,000: 50 users × 200, one live courier token each), put into the store directly.
/// Writes alternate between them in blocks of `--block`, the order swapped every round, so both
/// see the same load; after an untimed warm-up of one block each.
///
///   PushBench --flood-compare [--rounds 20] [--block 20] [--quiet 10] [--flooded 10000] [--backend postgres]
enum FloodComparison {
    static let quietContainer = "iCloud.com.example.PushBench.quiet"

    static func run(
        store: any RecordStore, client: LoopbackHTTPClient, flooded container: String, settings: (rounds: Int, block: Int, quiet: Int, flooded: Int)
    )
        async throws
    {
        for (target, count) in [(quietContainer, settings.quiet), (container, settings.flooded)] {
            let database = DatabaseKey(container: target, environment: .development, scope: .public, owner: DatabaseKey.publicOwner)
            let perUser = min(count, SubscriptionFlood.perUser)
            try await SubscriptionFlood.flood(store, database: database, users: (count + perUser - 1) / perUser, perUser: perUser) { index in
                Subscription(subscriptionID: "bait-\(index)", subscriptionType: .query, query: Query(recordType: "Bait"), firesOn: [.create])
            }
        }
        let cases = [(label: "quiet", container: quietContainer), (label: "flooded", container: container)]
        for (label, target) in cases { _ = try SubscriptionFlood.measure(client, container: target, label: "warm-\(label)", count: settings.block) }
        var samples: [String: [Double]] = [:]
        for round in 0..<settings.rounds {
            for (label, target) in round.isMultiple(of: 2) ? cases : cases.reversed() {
                samples[label, default: []] += try SubscriptionFlood.measure(client, container: target, label: "\(label)-\(round)", count: settings.block)
            }
        }
        let outbox = try await store.read { try $0.pushOutbox(limit: 10) }.count
        let quiet = samples["quiet"] ?? []
        let flooded = samples["flooded"] ?? []
        let ratio = percentile(flooded, 50) / percentile(quiet, 50)
        print(
            """

            | public write, one record per request, with … | p50 | p99 | writes |
            |---|---|---|---|
            | \(grouped(Double(settings.quiet))) subscriptions of other users on another type | \(ms(percentile(quiet, 50))) | \(ms(percentile(quiet, 99))) | \(quiet.count) |
            | \(grouped(Double(settings.flooded))) subscriptions of other users on another type | \(ms(percentile(flooded, 50))) | \(ms(percentile(flooded, 99))) | \(flooded.count) |

            p50 ratio flooded / quiet: \(String(format: "%.2f×", ratio)) (target ≤ 1.3×: \(ratio <= 1.3 ? "met" : "MISSED")); outbox entries left: \(outbox)
            """)
    }
}
