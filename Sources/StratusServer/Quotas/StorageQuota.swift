import StratusWire

/// The storage quotas of the databases (design note 0017), enforced inside each write transaction.
enum StorageQuota {
    /// Counts the usage `changes` add to `zone` and refuses them, inside the write transaction,
    /// when they would take the database past its quota. Only growth is refused: a write that
    /// frees space always passes.
    ///
    /// - Throws: `QUOTA_EXCEEDED` (413); the transaction then rolls back whole.
    static func account(
        _ changes: [RecordChange], zone: ZoneRow, database: DatabaseKey, limits: QuotaLimits, _ tx: any RecordStoreWriter
    ) throws {
        guard !changes.isEmpty else { return }
        let counters = tx
        var delta = StorageUsage.zero
        for change in changes {
            delta = delta + RecordUsage.of(change.after) - RecordUsage.of(change.before)
        }
        if delta == .zero { return }
        let limited: Bool
        switch database.scope {
        case .public:
            limited = limits.publicRecordBytes < QuotaLimits.unlimited.publicRecordBytes || limits.publicAssetBytes < QuotaLimits.unlimited.publicAssetBytes
        default: limited = limits.privateBytesPerUser < QuotaLimits.unlimited.privateBytesPerUser
        }
        // Only growth is checked, and only against a real limit; the counters move either way.
        if limited, delta.recordBytes > 0 || delta.assetBytes > 0 {
            let usage = try counters.usage(of: database) + delta
            switch database.scope {
            case .public:
                if delta.recordBytes > 0, usage.recordBytes > limits.publicRecordBytes {
                    throw quotaExceeded("the public database's records", usage.recordBytes, limits.publicRecordBytes)
                }
                if delta.assetBytes > 0, usage.assetBytes > limits.publicAssetBytes {
                    throw quotaExceeded("the public database's assets", usage.assetBytes, limits.publicAssetBytes)
                }
            default:
                let total = usage.recordBytes + usage.assetBytes
                if total > limits.privateBytesPerUser {
                    throw quotaExceeded("the private database of user '\(database.owner)'", total, limits.privateBytesPerUser)
                }
            }
        }
        try counters.addUsage(delta, zoneRowID: zone.rowID)
    }

    private static func quotaExceeded(_ what: String, _ bytes: Int64, _ limit: Int64) -> ServiceError {
        ServiceError(.quotaExceeded, "this write would take \(what) to \(bytes) bytes; the quota is \(limit) bytes; nothing was written")
    }
}
