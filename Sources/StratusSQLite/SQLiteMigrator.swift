import StratusLogging

/// Applies named schema migrations in order, once each, and refuses databases from newer code.
///
/// Register migrations in the order they must run; never rename, reorder or edit one that
/// has shipped. Each runs in its own immediate transaction together with the row that
/// records it in `stratus_migrations (identifier TEXT PRIMARY KEY, applied_at REAL)`,
/// where `applied_at` is Unix time in seconds, so a migration is either fully applied
/// and recorded, or not at all.
///
/// ```swift
/// var migrator = SQLiteMigrator()
/// migrator.registerMigration("v1-create-records") { db in
///     try db.execute(sql: "CREATE TABLE records (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
/// }
/// migrator.registerMigration("v2-records-modified") { db in
///     try db.execute(sql: "ALTER TABLE records ADD COLUMN modified REAL")
/// }
/// try await migrator.migrate(pool)   // throws SQLiteMigrationError if the file is from newer code
/// ```
///
/// `PRAGMA foreign_keys` cannot change inside a transaction; a migration that rebuilds a
/// referenced table can use `PRAGMA defer_foreign_keys = ON` instead.
public struct SQLiteMigrator: Sendable {
    private struct Migration: Sendable {
        var identifier: String
        var migrate: @Sendable (SQLiteConnection) throws -> Void
    }

    private var migrations: [Migration] = []

    /// The table that records applied migrations.
    public static let tableName = "stratus_migrations"

    /// Creates a migrator with no migrations.
    public init() {}

    /// The identifiers of the registered migrations, in order.
    public var migrationIdentifiers: [String] { migrations.map(\.identifier) }

    /// Adds a migration after those already registered.
    ///
    /// Registering the same identifier twice is a programming error and stops the program.
    ///
    /// - Parameters:
    ///   - identifier: A unique, stable name such as `"v3-add-zone-index"`.
    ///   - migrate: Changes the schema or data; runs inside a transaction.
    public mutating func registerMigration(_ identifier: String, migrate: @escaping @Sendable (SQLiteConnection) throws -> Void) {
        precondition(
            !migrations.contains { $0.identifier == identifier }, "migration \"\(identifier)\" is registered twice")
        migrations.append(Migration(identifier: identifier, migrate: migrate))
    }

    /// Applies the registered migrations that the database lacks, in order, on `db`.
    ///
    /// Call it outside a transaction (each migration opens its own). Safe to call on every
    /// start: applied migrations are skipped, even if another process applied them meanwhile.
    ///
    /// - Parameters:
    ///   - db: A writable connection.
    ///   - lastIdentifier: Stop after this migration (for tests of a migration); `nil` applies all.
    /// - Throws: ``SQLiteMigrationError`` if the database has migrations this migrator does not
    ///   know (nothing is applied then); what a migration throws (it is rolled back); ``SQLiteError``.
    public func migrate(_ db: SQLiteConnection, upTo lastIdentifier: String? = nil) throws {
        precondition(!db.isInTransaction, "SQLiteMigrator.migrate must be called outside a transaction")
        if let lastIdentifier {
            precondition(migrationIdentifiers.contains(lastIdentifier), "no migration named \"\(lastIdentifier)\"")
        }
        try db.execute(
            sql: "CREATE TABLE IF NOT EXISTS \(Self.tableName) (identifier TEXT NOT NULL PRIMARY KEY, applied_at REAL NOT NULL)")
        try checkNotSuperseded(db)
        for migration in migrations {
            try db.transaction(.immediate) { db in
                let applied = try db.fetchOne(
                    Int.self, "SELECT 1 FROM \(Self.tableName) WHERE identifier = ?", [migration.identifier])
                guard applied == nil else { return }
                try migration.migrate(db)
                // NB: julianday('now') is the transaction's time; 2440587.5 is the Julian day of 1970-01-01.
                try db.execute(
                    "INSERT INTO \(Self.tableName) (identifier, applied_at) VALUES (?, (julianday('now') - 2440587.5) * 86400.0)",
                    [migration.identifier])
                db.logger.info("applied migration", metadata: ["migration": migration.identifier, "path": db.path])
            }
            if migration.identifier == lastIdentifier { break }
        }
    }

    /// Applies the missing migrations on the database's writer, outside any transaction.
    ///
    /// - Parameter database: A pool or queue.
    /// - Throws: ``SQLiteMigrationError`` if the database is from newer code; what a migration throws; ``SQLiteError``.
    public func migrate(_ database: some SQLiteDatabase) async throws {
        try await database.writeWithoutTransaction { db in try self.migrate(db) }
    }

    /// The identifiers of the migrations recorded in the database, in the order they were applied.
    ///
    /// - Parameter db: A connection.
    /// - Returns: The identifiers; empty if no migration was ever applied.
    /// - Throws: ``SQLiteError``.
    public func appliedMigrations(_ db: SQLiteConnection) throws -> [String] {
        guard try db.tableExists(Self.tableName) else { return [] }
        return try db.fetchAll(String.self, "SELECT identifier FROM \(Self.tableName) ORDER BY rowid")
    }

    /// The applied migrations this migrator does not know, in the order they were applied.
    ///
    /// - Parameter db: A connection.
    /// - Returns: The unknown identifiers; empty unless newer code wrote the database.
    /// - Throws: ``SQLiteError``.
    public func unknownMigrations(_ db: SQLiteConnection) throws -> [String] {
        let known = Set(migrationIdentifiers)
        return try appliedMigrations(db).filter { !known.contains($0) }
    }

    /// Whether the database has migrations this migrator does not know: newer code wrote it.
    ///
    /// - Parameter db: A connection.
    /// - Returns: `true` if a program with this migrator should not use the database.
    /// - Throws: ``SQLiteError``.
    public func hasBeenSuperseded(_ db: SQLiteConnection) throws -> Bool {
        try !unknownMigrations(db).isEmpty
    }

    /// Whether every registered migration has been applied.
    ///
    /// - Parameter db: A connection.
    /// - Returns: `true` if ``migrate(_:upTo:)`` has nothing to do.
    /// - Throws: ``SQLiteError``.
    public func hasCompletedMigrations(_ db: SQLiteConnection) throws -> Bool {
        let applied = Set(try appliedMigrations(db))
        return migrations.allSatisfy { applied.contains($0.identifier) }
    }

    private func checkNotSuperseded(_ db: SQLiteConnection) throws {
        let unknown = try unknownMigrations(db)
        guard unknown.isEmpty else {
            throw SQLiteMigrationError(
                code: .databaseIsNewer, path: db.path, unknownMigrations: unknown, knownMigrations: migrationIdentifiers)
        }
    }
}

/// The database cannot be migrated by this program.
///
/// ```swift
/// do {
///     try await migrator.migrate(pool)
/// } catch let error as SQLiteMigrationError where error.code == .databaseIsNewer {
///     logger.critical("\(error)")   // refuse to start
/// }
/// ```
public struct SQLiteMigrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why migration was refused; open to new reasons.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The reason's stable name.
        public var rawValue: String

        /// Wraps a reason name.
        ///
        /// - Parameter rawValue: The name.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The database has migrations this program does not know: a newer version wrote it.
        public static let databaseIsNewer = Code(rawValue: "databaseIsNewer")
    }

    /// Why migration was refused.
    public var code: Code
    /// The database file.
    public var path: String
    /// The applied migrations this program does not know, in the order they were applied.
    public var unknownMigrations: [String]
    /// The migrations this program knows, in order.
    public var knownMigrations: [String]

    /// Creates the error.
    ///
    /// - Parameters:
    ///   - code: Why migration was refused.
    ///   - path: The database file.
    ///   - unknownMigrations: The applied migrations this program does not know.
    ///   - knownMigrations: The migrations this program knows.
    public init(code: Code, path: String, unknownMigrations: [String], knownMigrations: [String]) {
        self.code = code
        self.path = path
        self.unknownMigrations = unknownMigrations
        self.knownMigrations = knownMigrations
    }

    /// A sentence naming the file and the unknown migrations.
    public var description: String {
        "the database at \(path) was migrated by a newer program: it has migrations this program does not know "
            + "(\(unknownMigrations.joined(separator: ", "))); refusing to use it. Known migrations: "
            + "\(knownMigrations.isEmpty ? "none" : knownMigrations.joined(separator: ", "))"
    }
}
