import StratusPostgres
import StratusServer
import StratusServerSQL
import StratusSQL
import StratusWire

/// Subscriptions, web courier tokens and queues, the push outbox and APNs delivery on PostgreSQL:
/// the statements are `SQLPushStore`'s and `SQLAPNsStore`'s, shared with SQLite.
extension PostgresStoreTransaction: SQLPushStore, SQLAPNsStore {
    /// Runs `pg_notify` in the transaction: delivered at commit (and not at all on rollback) to every
    /// node's relay, which wakes its parked polls for the token; PostgreSQL folds repeats within one transaction.
    func announceQueued(token: String) throws {
        db.enqueue(PostgresStatement("SELECT pg_notify($1, $2)", [pushChannel, token]))
    }

    /// Queued, not sent: nothing in the write reads the outbox, so the insert goes out with the next
    /// statement or the `COMMIT` (a failure still fails the write) — one round trip fewer under the zone lock.
    func appendPushOutbox(_ entry: NewPushOutboxEntry) throws {
        db.enqueue(PostgresConnection.statement(SQLPushStatements.outboxInsert(entry)))
    }

    func prefetchSubscriptionCandidates(in database: DatabaseKey, zoneName: String, recordTypes: Set<String>) throws {
        guard isWriting else { return }
        probes.announce(in: database, zoneName: zoneName, recordTypes: recordTypes)
    }

    /// Answered from what `prefetchRecords` asked with the zone lock when it can (the question a
    /// records write asks per changed type, `PushOutboxRecorder`), else read now.
    func hasSubscription(watching recordType: String, in database: DatabaseKey, zoneName: String) throws -> Bool {
        if let known = probes.take(in: database, zoneName: zoneName, recordTypes: [recordType], after: nil, limit: 1) { return !known.isEmpty }
        return try existsSubscription(watching: recordType, in: database, zoneName: zoneName)
    }

    /// Answered from what `prefetchRecords` asked with the zone lock when it can, else read now.
    func subscriptionCandidates(
        in database: DatabaseKey, zoneName: String, recordTypes: Set<String>, after cursor: SubscriptionKey?, limit: Int
    ) throws -> [StoredSubscription] {
        if let known = probes.take(in: database, zoneName: zoneName, recordTypes: recordTypes, after: cursor, limit: limit) { return known }
        let statement = SQLPushStatements.candidates(
            in: database, zoneName: zoneName, recordTypes: recordTypes, after: cursor, limit: limit, dialect: .postgres
        )
        return try fetchAll(literal: statement, Self.subscription(database))
    }
}

/// Asset bookkeeping on PostgreSQL.
extension PostgresStoreTransaction {
    // MARK: Assets

    /// In a write, the row is share-locked until commit: a collection on another node (which
    /// locks it for update) cannot delete the content this write is about to reference.
    func asset(key: String) throws -> StoredAsset? {
        try first("SELECT key, size, released_at FROM assets WHERE key = $1\(isWriting ? " FOR SHARE" : "")", [key]).map { row in
            StoredAsset(key: try row[0], size: try row[1], releasedAt: try row[2])
        }
    }

    func assetReferenceCount(key: String) throws -> Int {
        try first("SELECT count(*) FROM asset_refs WHERE key = $1", [key]).map { try $0[0] } ?? 0
    }

    func putAsset(key: String, size: Int64, now: Int64) throws {
        try execute(
            "INSERT INTO assets (key, size, released_at) VALUES ($1, $2, $3) ON CONFLICT (key) DO UPDATE SET released_at = excluded.released_at",
            [key, size, now]
        )
    }

    func replaceAssetReferences(zoneRowID: Int64, recordName: String, keys: [AssetReferenceKey], now: Int64) throws {
        let previous: [String] = try query(
            "DELETE FROM asset_refs WHERE zone_id = $1 AND record_name = $2 RETURNING key", [zoneRowID, recordName]
        ).map { try $0[0] }
        for reference in keys {
            try execute(
                """
                INSERT INTO asset_refs (zone_id, record_name, field_name, position, key) VALUES ($1, $2, $3, $4, $5)
                ON CONFLICT (zone_id, record_name, field_name, position) DO UPDATE SET key = excluded.key
                """,
                [zoneRowID, recordName, reference.fieldName, reference.position, reference.key]
            )
        }
        try release(Set(previous).subtracting(keys.map(\.key)), now: now)
    }

    func removeAssetReferences(inZone zoneRowID: Int64, now: Int64) throws {
        let previous: [String] = try query("DELETE FROM asset_refs WHERE zone_id = $1 RETURNING key", [zoneRowID]).map { try $0[0] }
        try release(Set(previous), now: now)
    }

    /// Stamps contents that no longer have any reference, starting their grace period.
    private func release(_ keys: Set<String>, now: Int64) throws {
        for key in keys.sorted() {
            try execute(
                "UPDATE assets SET released_at = $1 WHERE key = $2 AND NOT EXISTS (SELECT 1 FROM asset_refs WHERE key = $2)", [now, key]
            )
        }
    }

    /// Locks the contents it returns (skipping any another transaction holds: an upload of the
    /// same bytes, or a save about to reference them), so none gains a reference before it is deleted.
    func collectableAssets(releasedBefore: Int64, limit: Int) throws -> [String] {
        try query(
            """
            SELECT key FROM assets
            WHERE released_at <= $1 AND NOT EXISTS (SELECT 1 FROM asset_refs WHERE asset_refs.key = assets.key)
            ORDER BY released_at, key LIMIT $2
            FOR UPDATE SKIP LOCKED
            """,
            [releasedBefore, limit]
        ).map { try $0[0] }
    }

    func deleteAsset(key: String) throws {
        try execute("DELETE FROM assets WHERE key = $1", [key])
    }
}

/// The reads of a whole-container export: `SQLExportStore`'s, shared with SQLite.
extension PostgresStoreTransaction: SQLExportStore {}
