/// Ordered schema migrations, recorded in a `stratus_migrations` table.
///
/// Each migration runs once, in its own transaction, in registration order. Nodes that
/// start together serialize on an advisory lock, so one applies and the others see it
/// applied. A database holding a migration this program does not know (written by a newer
/// Stratus) is refused rather than used.
///
/// ```swift
/// var migrator = PostgresMigrator()
/// migrator.registerMigration("v1-zones") { db in try db.execute("CREATE TABLE zones (…)") }
/// try await migrator.migrate(pool)
/// ```
public struct PostgresMigrator: Sendable {
    private var migrations: [(identifier: String, body: @Sendable (PostgresConnection) throws -> Void)] = []

    /// Creates an empty migrator.
    public init() {}

    /// The registered identifiers, in order.
    public var identifiers: [String] { migrations.map(\.identifier) }

    /// Adds a migration after those registered so far.
    ///
    /// - Parameters:
    ///   - identifier: A unique, never-reused name.
    ///   - body: The schema change, run inside the migration's transaction.
    public mutating func registerMigration(_ identifier: String, _ body: @escaping @Sendable (PostgresConnection) throws -> Void) {
        precondition(!migrations.contains { $0.identifier == identifier }, "migration '\(identifier)' registered twice")
        migrations.append((identifier, body))
    }

    /// The identifiers applied to the database (in the connection's search path).
    ///
    /// - Throws: ``PostgresError``.
    public func appliedIdentifiers(_ db: PostgresConnection) throws -> [String] {
        try db.execute("CREATE TABLE IF NOT EXISTS stratus_migrations (identifier TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
        return try db.query("SELECT identifier FROM stratus_migrations ORDER BY applied_at, identifier").map { try $0[0] }
    }

    /// Applies the migrations the database lacks.
    ///
    /// - Throws: ``PostgresError`` (``PostgresError/Code/schemaTooNew`` when the database knows migrations this program does not).
    public func migrate(_ pool: PostgresConnectionPool) async throws {
        let migrations = self.migrations
        try await pool.withConnection { db in
            try db.transaction { db in
                try db.execute("SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.stratus_migrations'))")
                let applied = Set(try appliedIdentifiers(db))
                let unknown = applied.subtracting(migrations.map(\.identifier))
                guard unknown.isEmpty else {
                    throw PostgresError(
                        code: .schemaTooNew,
                        message: "the database was migrated by a newer Stratus (unknown migrations: \(unknown.sorted().joined(separator: ", ")))"
                    )
                }
                for migration in migrations where !applied.contains(migration.identifier) {
                    try migration.body(db)
                    try db.execute("INSERT INTO stratus_migrations (identifier) VALUES ($1)", [migration.identifier])
                }
            }
        }
    }
}
