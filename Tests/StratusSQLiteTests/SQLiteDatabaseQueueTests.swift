import StratusSQLite
import StratusTesting
import Testing

@Suite struct SQLiteDatabaseQueueTests {
    /// Generic code runs the same on a queue and on a pool.
    private func exercise(_ database: some SQLiteDatabase) async throws -> [String] {
        try await database.writeWithoutTransaction { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS notes (body TEXT NOT NULL)")
        }
        try await database.write { db in
            try db.execute("INSERT INTO notes (body) VALUES (?)", ["hello"])
        }
        try database.writeSync { db in try db.execute("INSERT INTO notes (body) VALUES (?)", ["world"]) }
        return try await database.read { db in try db.fetchAll(String.self, "SELECT body FROM notes ORDER BY rowid") }
    }

    /// An in-memory queue reads and writes.
    @Test func inMemoryQueueReadsAndWrites() async throws {
        let queue = try SQLiteDatabaseQueue(configuration: SQLiteConfiguration(path: ":memory:"))
        #expect(try await exercise(queue) == ["hello", "world"])
        #expect(try queue.readSync { db in try db.fetchOne(Int.self, "SELECT count(*) FROM notes") } == 2)
        try queue.close()
    }

    /// A file-backed queue and a pool behave the same through SQLiteDatabase.
    @Test func queueAndPoolAreInterchangeable() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queue = try SQLiteDatabaseQueue(configuration: SQLiteConfiguration(path: directory.path("queue.sqlite")))
        let pool = try makePool(in: directory)
        #expect(try await exercise(queue) == ["hello", "world"])
        #expect(try await exercise(pool) == ["hello", "world"])
        try queue.close()
        try pool.close()
    }

    /// Writing inside read fails with readOnly, and the connection stays writable afterwards.
    @Test func readsAreReadOnly() async throws {
        let queue = try SQLiteDatabaseQueue(configuration: SQLiteConfiguration(path: ":memory:"))
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "CREATE TABLE t (x)") }
        let error = await #expect(throws: SQLiteError.self) {
            try await queue.read { db in try db.execute("INSERT INTO t VALUES (1)") }
        }
        #expect(error?.code.primary == .readOnly)
        try await queue.write { db in try db.execute("INSERT INTO t VALUES (1)") }
        #expect(try await queue.read { db in try db.fetchOne(Int.self, "SELECT count(*) FROM t") } == 1)
        try queue.close()
    }

    /// Concurrent writers through a queue are serialized without losing rows.
    @Test func concurrentWritesAreSerialized() async throws {
        let queue = try SQLiteDatabaseQueue(configuration: SQLiteConfiguration(path: ":memory:"))
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "CREATE TABLE t (x INTEGER)") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<4 {
                group.addTask {
                    for n in 0..<50 {
                        try await queue.write { db in try db.execute("INSERT INTO t VALUES (?)", binding: task * 100 + n) }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await queue.read { db in try db.fetchOne(Int.self, "SELECT count(DISTINCT x) FROM t") } == 200)
        try queue.close()
    }
}
