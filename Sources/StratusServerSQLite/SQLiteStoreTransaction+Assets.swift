import StratusServer
import StratusSQLite

/// Asset contents and their references on SQLite.
extension SQLiteStoreTransaction {
    func asset(key: String) throws -> StoredAsset? {
        try db.fetchOne("SELECT key, size, released_at FROM assets WHERE key = ?", [key]) { row in
            StoredAsset(key: try row[0], size: try row[1], releasedAt: try row[2])
        }
    }

    func assetReferenceCount(key: String) throws -> Int {
        try db.fetchOne(Int.self, "SELECT count(*) FROM asset_refs WHERE key = ?", [key]) ?? 0
    }

    func putAsset(key: String, size: Int64, now: Int64) throws {
        try db.execute(
            "INSERT INTO assets (key, size, released_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET released_at = excluded.released_at",
            [key, size, now]
        )
    }

    func replaceAssetReferences(zoneRowID: Int64, recordName: String, keys: [AssetReferenceKey], now: Int64) throws {
        let previous = try db.fetchAll(
            String.self, "SELECT DISTINCT key FROM asset_refs WHERE zone_id = ? AND record_name = ?", [zoneRowID, recordName]
        )
        if !previous.isEmpty {
            try db.execute("DELETE FROM asset_refs WHERE zone_id = ? AND record_name = ?", [zoneRowID, recordName])
        }
        for reference in keys {
            try db.execute(
                "INSERT OR REPLACE INTO asset_refs (zone_id, record_name, field_name, position, key) VALUES (?, ?, ?, ?, ?)",
                [zoneRowID, recordName, reference.fieldName, reference.position, reference.key]
            )
        }
        try release(Set(previous).subtracting(keys.map(\.key)), now: now)
    }

    func removeAssetReferences(inZone zoneRowID: Int64, now: Int64) throws {
        let previous = try db.fetchAll(String.self, "SELECT DISTINCT key FROM asset_refs WHERE zone_id = ?", [zoneRowID])
        guard !previous.isEmpty else { return }
        try db.execute("DELETE FROM asset_refs WHERE zone_id = ?", [zoneRowID])
        try release(Set(previous), now: now)
    }

    /// Stamps contents that no longer have any reference, starting their grace period.
    private func release(_ keys: Set<String>, now: Int64) throws {
        for key in keys.sorted() {
            try db.execute(
                "UPDATE assets SET released_at = ? WHERE key = ? AND NOT EXISTS (SELECT 1 FROM asset_refs WHERE key = ?)", [now, key, key]
            )
        }
    }

    func collectableAssets(releasedBefore: Int64, limit: Int) throws -> [String] {
        try db.fetchAll(
            String.self,
            """
            SELECT key FROM assets
            WHERE released_at <= ? AND NOT EXISTS (SELECT 1 FROM asset_refs WHERE asset_refs.key = assets.key)
            ORDER BY released_at LIMIT ?
            """,
            [releasedBefore, limit]
        )
    }

    func deleteAsset(key: String) throws {
        try db.execute("DELETE FROM assets WHERE key = ?", [key])
    }
}
