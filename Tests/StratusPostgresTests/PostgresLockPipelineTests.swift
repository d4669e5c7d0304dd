import StratusPostgres
import StratusServer
import StratusServerPostgres
import StratusTesting
import StratusWire
import Testing

/// A write's zone lock goes out with everything the write reads under it — the zone's counter, the
/// named records, whether subscriptions watch the request's record types — in one pipeline, and its
/// writes go out with the `COMMIT` (Documentation/0008, "The zone lock for two round trips").
@Suite(.enabled(if: PostgresScratch.isEnabled, "set STRATUS_POSTGRES_URL (make test does)"))
struct PostgresLockPipelineTests {
    static let database = PostgresRecordStoreSequenceTests.database

    static func watching(_ type: String) -> StoredSubscription {
        let subscription = Subscription(subscriptionID: "watch-\(type)", subscriptionType: .query, query: Query(recordType: type), firesOn: [.create])
        return StoredSubscription(database: database, subscriber: "_watcher", subscription: subscription, createdAt: 0)
    }

    @Test func subscriptionQuestionsAskedWithTheZoneLockAnswerAsAReadAtTheEndWould() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url(), connections: 2)
        let zone = try await store.write { tx in
            try tx.putSubscription(Self.watching("Note"))
            return try tx.createZone(named: "Watched", in: Self.database, createdAt: 1)
        }
        let answers = try await store.write { tx in
            try tx.prefetchSubscriptionCandidates(in: Self.database, zoneName: "Watched", recordTypes: ["Note", "Other"])
            try tx.prefetchRecords(named: ["a"], inZone: zone.rowID)
            func ask(_ type: String) throws -> [String] {
                try tx.subscriptionCandidates(in: Self.database, zoneName: "Watched", recordTypes: [type], after: nil, limit: 1)
                    .map(\.subscription.subscriptionID)
            }
            // Asked ahead (Note, Other), then asked again (read now), then a type nobody announced.
            return [try ask("Note"), try ask("Other"), try ask("Note"), try ask("Other"), try ask("Unannounced")]
        }
        #expect(answers == [["watch-Note"], [], ["watch-Note"], [], []])
        try await store.close()
    }

    @Test func aFailingStatementInTheLockingPipelineRollsTheWholeWriteBack() async throws {
        let store = try await PostgresRecordStore.openTemporary(url: try PostgresTestDatabase.url(), connections: 2)
        let zone = try await store.write { tx in try tx.createZone(named: "Broken", in: Self.database, createdAt: 1) }
        try await store.write { tx in
            let sequence = try tx.nextChangeSequence(inZone: zone.rowID)
            try tx.putRecord(PostgresBatchWriteTests.record("kept", zone: zone.rowID, sequence: sequence), references: [])
        }
        // The subscription question of the locking pipeline now fails in PostgreSQL (no such column).
        let admin = try PostgresConnection(url: try PostgresTestDatabase.url())
        try admin.execute("ALTER TABLE \(try #require(store.schema)).subscriptions RENAME COLUMN record_type TO record_type_gone")
        await #expect(throws: PostgresError.self) {
            try await store.write { tx in
                // Buffered before the pipeline, so sent in it, ahead of the lock: rolled back with it.
                let sequence = try tx.nextChangeSequence(inZone: zone.rowID)
                try tx.putRecord(PostgresBatchWriteTests.record("early", zone: zone.rowID, sequence: sequence), references: [])
                try tx.prefetchSubscriptionCandidates(in: Self.database, zoneName: "Broken", recordTypes: ["Note"])
                try tx.prefetchRecords(named: ["late"], inZone: zone.rowID)
            }
        }
        let (records, stored) = try await store.read { tx in
            (try tx.recordChanges(inZone: zone.rowID, after: 0, limit: 10, recordTypes: nil), try tx.zone(rowID: zone.rowID))
        }
        #expect(records.map(\.recordName) == ["kept"])
        #expect(stored?.changeSequence == 1)
        try await store.close()
    }
}
