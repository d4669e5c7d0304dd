import StratusPostgres
public import StratusServer

/// Request-rate buckets every node shares: one row per container, refilled and drawn from
/// by one atomic upsert outside any record transaction (Documentation/0008-postgres.md).
extension PostgresRecordStore: SharedRateBuckets {
    /// ``RateBucketSharing/shared(_:)``: the buckets live in the database every node uses.
    public var rateBucketSharing: RateBucketSharing { .shared(self) }

    /// The bucket's level now: the stored level plus the refill since it was last touched, at most the capacity.
    private static let refilled = "least($2::float8, b.tokens + greatest(0, $4::bigint - b.updated_at) * $3::float8 / 1000.0)"

    /// Refills `key`'s bucket and takes up to `count` whole tokens in one statement.
    ///
    /// `INSERT … ON CONFLICT DO UPDATE` locks the row and computes from its latest version,
    /// so concurrent nodes never take the same token; `granted` is stored in the row only
    /// so that `RETURNING` can report it.
    public func takeTokens(upTo count: Int, key: String, limits: QuotaLimits, now: Int64) async throws -> RateLease {
        let capacity = max(limits.requestsPerSecond + limits.burst, 1)
        let rate = max(limits.requestsPerSecond, 0.001)
        let refilled = Self.refilled
        return try await pool.withConnection { db in
            let rows = try db.query(
                """
                INSERT INTO rate_buckets AS b (key, tokens, updated_at, granted)
                VALUES ($1, $2::float8 - least(floor($2::float8), $5::float8), $4::bigint, least(floor($2::float8), $5::float8))
                ON CONFLICT (key) DO UPDATE SET
                    granted = least(floor(\(refilled)), $5::float8),
                    tokens = \(refilled) - least(floor(\(refilled)), $5::float8),
                    updated_at = greatest(b.updated_at, $4::bigint)
                RETURNING granted, tokens
                """,
                [key, capacity, rate, now, Double(count)]
            )
            guard let row = rows.first else { throw PostgresStoreCorruption(message: "the rate bucket upsert returned no row") }
            return RateLease(granted: Int(try row[0] as Double), remaining: try row[1])
        }
    }

    static func registerRateBuckets(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v6-rate-buckets") { db in
            try db.execute(
                """
                -- Token buckets of request rates, one per container, shared by every node.
                CREATE TABLE rate_buckets (
                    key TEXT PRIMARY KEY,
                    tokens DOUBLE PRECISION NOT NULL,
                    updated_at BIGINT NOT NULL,
                    granted DOUBLE PRECISION NOT NULL DEFAULT 0
                );
                """)
        }
    }
}
