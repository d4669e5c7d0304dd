import Foundation
@testable import StratusServer
@testable import StratusServerSQLite
import StratusServerSQL
import StratusSQL
import StratusSQLite
import StratusTesting
import StratusWire
import Testing

/// The SQLite push tables: the candidate query reads the watch index only, and an upgraded
/// database fills in the watch of the subscriptions it already had.
@Suite struct SQLitePushSchemaTests {
    static let database = DatabaseKey(container: "iCloud.c", environment: .development, scope: .public, owner: DatabaseKey.publicOwner)

    /// Every arm of the candidate query searches `subscriptions_by_watch`; none walks the table or its primary key.
    @Test func candidateProbesSearchTheWatchIndexOnly() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-push-schema")
        defer { directory.remove() }
        let store = try await SQLiteRecordStore.open(path: directory.path("stratus.sqlite"))
        try await store.close()
        let db = try SQLiteConnection(path: directory.path("stratus.sqlite"), readOnly: true)
        defer { try? db.close() }
        for cursor in [nil, SubscriptionKey(subscriber: "_a", subscriptionID: "s")] {
            let statement = SQLPushStatements.candidates(
                in: Self.database, zoneName: "_defaultZone", recordTypes: ["Post", "Bait"], after: cursor, limit: 500, dialect: .sqlite
            )
            let details = try db.fetchAll(literal: "EXPLAIN QUERY PLAN \(statement)") { row in try row[3] as String }
            let reads = details.filter { $0.contains("subscriptions") }
            #expect(reads.count == 5, "\(details)")
            #expect(reads.allSatisfy { $0.hasPrefix("SEARCH subscriptions USING INDEX subscriptions_by_watch") }, "\(details)")
        }
    }

    /// A database from before the outbox: its subscriptions get their record type and zone, its
    /// tokens keep working with no owner.
    @Test func upgradingFillsInTheWatchOfExistingSubscriptions() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-push-schema")
        defer { directory.remove() }
        let path = directory.path("stratus.sqlite")
        let old = try SQLiteConnection(path: path)
        try SQLiteRecordStoreSchema.migrator.migrate(old, upTo: "share-v2-hierarchy-moves")
        for subscription in PushSchemaUpgradeFixture.subscriptions {
            try old.execute(
                """
                INSERT INTO subscriptions (container, environment, scope, owner, subscriber, subscription_id, body, created_at)
                VALUES ('iCloud.c', 'development', 'public', '_public', '_alice', ?, ?, 0)
                """,
                [subscription.subscriptionID, try WireCoding.encode(subscription)]
            )
        }
        try old.execute(
            "INSERT INTO push_tokens (token, container, environment, apns_environment, user, created_at, expires_at) VALUES ('t', 'iCloud.c', 'development', 'development', '_alice', 0, 99)"
        )
        try old.close()

        let store = try await SQLiteRecordStore.open(path: path)
        #expect(try await PushSchemaUpgradeFixture.observe(store) == PushSchemaUpgradeFixture.expected)
        try await store.close()
    }
}
