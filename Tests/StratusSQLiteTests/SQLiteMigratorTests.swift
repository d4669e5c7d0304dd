import StratusSQLite
import StratusTesting
import Testing

@Suite struct SQLiteMigratorTests {
    private struct Failure: Error {}

    /// Three migrations that log their runs into a table.
    private func makeMigrator(_ identifiers: [String] = ["v1-create-log", "v2-first", "v3-second"]) -> SQLiteMigrator {
        var migrator = SQLiteMigrator()
        for identifier in identifiers {
            migrator.registerMigration(identifier) { db in
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS runs (identifier TEXT NOT NULL)")
                try db.execute("INSERT INTO runs (identifier) VALUES (?)", [identifier])
            }
        }
        return migrator
    }

    private func runs(_ database: some SQLiteDatabase) async throws -> [String] {
        try await database.read { db in try db.fetchAll(String.self, "SELECT identifier FROM runs ORDER BY rowid") }
    }

    /// Migrations run once each, in registration order, and are recorded with a time.
    @Test func migrationsRunOnceInOrder() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pool = try makePool(in: directory)
        let migrator = makeMigrator()
        try await migrator.migrate(pool)
        try await migrator.migrate(pool)
        #expect(try await runs(pool) == ["v1-create-log", "v2-first", "v3-second"])
        let (applied, times, completed) = try await pool.read { db in
            (
                try migrator.appliedMigrations(db),
                try db.fetchAll(Double.self, "SELECT applied_at FROM stratus_migrations"),
                try migrator.hasCompletedMigrations(db)
            )
        }
        #expect(applied == ["v1-create-log", "v2-first", "v3-second"])
        #expect(times.allSatisfy { $0 > 1_600_000_000 })
        #expect(completed)
        try pool.close()
    }

    /// Reopening the database and migrating again applies nothing new; a new migration is applied alone.
    @Test func migratingIsIdempotentAcrossReopen() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try makePool(in: directory)
        try await makeMigrator(["v1-create-log", "v2-first"]).migrate(first)
        try first.close()

        let second = try makePool(in: directory)
        try await makeMigrator(["v1-create-log", "v2-first"]).migrate(second)
        #expect(try await runs(second) == ["v1-create-log", "v2-first"])
        try await makeMigrator(["v1-create-log", "v2-first", "v3-second"]).migrate(second)
        #expect(try await runs(second) == ["v1-create-log", "v2-first", "v3-second"])
        try second.close()
    }

    /// A database migrated by newer code is refused with a clear error, and nothing is applied.
    @Test func unknownNewerMigrationIsDetected() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pool = try makePool(in: directory)
        try await makeMigrator(["v1-create-log", "v2-first", "v3-second"]).migrate(pool)

        let older = makeMigrator(["v1-create-log", "v2-first", "v2b-local-only"])
        let error = await #expect(throws: SQLiteMigrationError.self) { try await older.migrate(pool) }
        #expect(error?.code == .databaseIsNewer)
        #expect(error?.unknownMigrations == ["v3-second"])
        #expect(error?.description.contains("v3-second") == true)
        #expect(error?.description.contains(directory.path("pool.sqlite")) == true)
        #expect(try await pool.read { db in try older.hasBeenSuperseded(db) })
        #expect(try await pool.read { db in try older.unknownMigrations(db) } == ["v3-second"])
        #expect(try await runs(pool) == ["v1-create-log", "v2-first", "v3-second"])
        #expect(try await pool.read { db in try makeMigrator().hasBeenSuperseded(db) } == false)
        try pool.close()
    }

    /// A failing migration is rolled back and not recorded; earlier ones stay applied.
    @Test func failingMigrationIsRolledBack() async throws {
        let queue = try SQLiteDatabaseQueue(configuration: SQLiteConfiguration(path: ":memory:"))
        var migrator = makeMigrator(["v1-create-log"])
        migrator.registerMigration("v2-broken") { db in
            try db.execute(sql: "CREATE TABLE half (x)")
            throw Failure()
        }
        let broken = migrator
        await #expect(throws: Failure.self) { try await broken.migrate(queue) }
        let (applied, halfExists) = try await queue.read { db in
            (try broken.appliedMigrations(db), try db.tableExists("half"))
        }
        #expect(applied == ["v1-create-log"])
        #expect(!halfExists)
        try queue.close()
    }

    /// migrate(upTo:) stops after the named migration; a fresh database has none applied.
    @Test func migrateUpToStopsAtTheNamedMigration() throws {
        let test = try TestConnection()
        let migrator = makeMigrator()
        #expect(try migrator.appliedMigrations(test.db) == [])
        #expect(try !migrator.hasCompletedMigrations(test.db))
        try migrator.migrate(test.db, upTo: "v2-first")
        #expect(try migrator.appliedMigrations(test.db) == ["v1-create-log", "v2-first"])
        #expect(try !migrator.hasCompletedMigrations(test.db))
        try migrator.migrate(test.db)
        #expect(try migrator.hasCompletedMigrations(test.db))
        #expect(migrator.migrationIdentifiers == ["v1-create-log", "v2-first", "v3-second"])
    }
}
