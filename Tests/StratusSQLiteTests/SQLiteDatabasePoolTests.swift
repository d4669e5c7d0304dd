import Dispatch
import Foundation
import StratusSQLite
import StratusTesting
import Testing

@Suite struct SQLiteDatabasePoolTests {
    private func makeItemsPool(readerCount: Int = 4) throws -> (TemporaryDirectory, SQLiteDatabasePool) {
        let directory = try TemporaryDirectory(prefix: "stratus-pool")
        let pool = try makePool(in: directory, readerCount: readerCount)
        try pool.writeSync { db in
            try db.execute(sql: "CREATE TABLE items (id INTEGER PRIMARY KEY, owner INTEGER NOT NULL, n INTEGER NOT NULL)")
        }
        return (directory, pool)
    }

    private static func count(_ db: SQLiteConnection) throws -> Int {
        try db.fetchOne(Int.self, "SELECT count(*) FROM items") ?? -1
    }

    /// The pool runs in WAL mode with synchronous=NORMAL on every connection.
    @Test func walModeIsOn() async throws {
        let (directory, pool) = try makeItemsPool()
        defer { directory.remove() }
        #expect(try await pool.read { db in try db.fetchOne(String.self, "PRAGMA journal_mode") } == "wal")
        #expect(try await pool.writeWithoutTransaction { db in try db.fetchOne(String.self, "PRAGMA journal_mode") } == "wal")
        #expect(try await pool.write { db in try db.fetchOne(Int.self, "PRAGMA synchronous") } == 1)
        #expect(try await pool.read { db in db.isReadOnly })
        #expect(FileManager.default.fileExists(atPath: directory.path("pool.sqlite-wal")))
        try pool.close()
    }

    /// Readers take `readerCacheSizeKiB` as their page cache and the writer `cacheSizeKiB`; without
    /// a reader size, readers take the writer's.
    @Test func readersTakeTheirOwnPageCacheSize() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-pool")
        defer { directory.remove() }
        let split = try makePool(in: directory, name: "split.sqlite", readerCount: 1) { configuration in
            configuration.cacheSizeKiB = 8192
            configuration.readerCacheSizeKiB = 1024
        }
        #expect(try await split.write { db in try db.fetchOne(Int.self, "PRAGMA cache_size") } == -8192)
        #expect(try await split.read { db in try db.fetchOne(Int.self, "PRAGMA cache_size") } == -1024)
        try split.close()
        let shared = try makePool(in: directory, name: "shared.sqlite", readerCount: 1) { $0.cacheSizeKiB = 4096 }
        #expect(try await shared.read { db in try db.fetchOne(Int.self, "PRAGMA cache_size") } == -4096)
        try shared.close()
    }

    /// A write commits when its closure returns and rolls back when it throws.
    @Test func writeCommitsOrRollsBack() async throws {
        struct Failure: Error {}
        let (directory, pool) = try makeItemsPool()
        defer { directory.remove() }
        let id = try await pool.write { db in
            try db.execute("INSERT INTO items (owner, n) VALUES (?, ?)", [1, 1])
            return db.lastInsertRowID
        }
        #expect(id == 1)
        await #expect(throws: Failure.self) {
            try await pool.write { db in
                try db.execute("INSERT INTO items (owner, n) VALUES (?, ?)", [1, 2])
                throw Failure()
            }
        }
        #expect(try await pool.read(Self.count) == 1)
        try pool.close()
    }

    /// Readers are read-only: a write inside read fails with readOnly.
    @Test func readersCannotWrite() async throws {
        let (directory, pool) = try makeItemsPool()
        defer { directory.remove() }
        let error = await #expect(throws: SQLiteError.self) {
            try await pool.read { db in try db.execute("INSERT INTO items (owner, n) VALUES (1, 1)") }
        }
        #expect(error?.code.primary == .readOnly)
        try pool.close()
    }

    /// A reader does not see a write that has not committed yet.
    @Test func readerDoesNotSeeUncommittedWrites() async throws {
        let (directory, pool) = try makeItemsPool()
        defer { directory.remove() }
        let (insideWriter, seenByReader) = try await pool.write { db in
            try db.execute("INSERT INTO items (owner, n) VALUES (1, 1)")
            return (try Self.count(db), try pool.readSync(Self.count))
        }
        #expect(insideWriter == 1)
        #expect(seenByReader == 0)
        #expect(try await pool.read(Self.count) == 1)
        try pool.close()
    }

    /// A read transaction keeps its snapshot while a writer commits meanwhile.
    @Test func readTransactionSeesStableSnapshot() async throws {
        let (directory, pool) = try makeItemsPool()
        defer { directory.remove() }
        try await pool.write { db in try db.execute("INSERT INTO items (owner, n) VALUES (1, 1)") }
        let (before, after) = try await pool.read { db in
            let before = try Self.count(db)
            try pool.writeSync { db in try db.execute("INSERT INTO items (owner, n) VALUES (1, 2)") }
            return (before, try Self.count(db))
        }
        #expect(before == 1)
        #expect(after == 1)
        #expect(try await pool.read(Self.count) == 2)
        try pool.close()
    }

    /// Reads complete while a long write transaction is still open.
    @Test func readsAreNotBlockedByALongWrite() async throws {
        let (directory, pool) = try makeItemsPool()
        defer { directory.remove() }
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let readDone = DispatchSemaphore(value: 0)
        let writer = Task {
            try await pool.write { db in
                try db.execute("INSERT INTO items (owner, n) VALUES (1, 1)")
                startedContinuation.yield()
                // Hold the write transaction open until the reader is done (or give up).
                return readDone.wait(timeout: .now() + 30) == .success
            }
        }
        for await _ in started { break }
        let seen = try await pool.read(Self.count)
        readDone.signal()
        #expect(seen == 0)
        #expect(try await writer.value, "the read had to wait for the write to finish")
        #expect(try await pool.read(Self.count) == 1)
        try pool.close()
    }

    /// Eight tasks writing 200 rows each while others read produce exactly the expected rows.
    @Test func concurrentWritesAndReadsProduceExactRows() async throws {
        let (directory, pool) = try makeItemsPool(readerCount: 3)
        defer { directory.remove() }
        let writers = 8
        let writesPerWriter = 200
        let observed = try await withThrowingTaskGroup(of: [Int].self) { group in
            for owner in 0..<writers {
                group.addTask {
                    for n in 0..<writesPerWriter {
                        try await pool.write { db in
                            try db.execute("INSERT INTO items (owner, n) VALUES (?, ?)", binding: owner, n)
                        }
                    }
                    return []
                }
            }
            for _ in 0..<8 {
                group.addTask {
                    var counts: [Int] = []
                    for _ in 0..<50 {
                        counts.append(
                            try await pool.read { db in
                                // Two reads in one transaction agree: a consistent snapshot.
                                let first = try Self.count(db)
                                let sum = try db.fetchOne(Int.self, "SELECT count(*) FROM items WHERE n >= 0") ?? -1
                                return first == sum ? first : -1
                            })
                    }
                    return counts
                }
            }
            var all: [Int] = []
            for try await counts in group { all += counts }
            return all
        }
        #expect(observed.allSatisfy { (0...writers * writesPerWriter).contains($0) })
        let (total, perOwner, distinct) = try await pool.read { db in
            (
                try Self.count(db),
                try db.fetchAll("SELECT owner, count(*), max(n) FROM items GROUP BY owner ORDER BY owner") { row in
                    [try row[0] as Int, try row[1] as Int, try row[2] as Int]
                },
                try db.fetchOne(Int.self, "SELECT count(*) FROM (SELECT DISTINCT owner, n FROM items)") ?? 0
            )
        }
        #expect(total == writers * writesPerWriter)
        #expect(distinct == writers * writesPerWriter)
        #expect(perOwner == (0..<writers).map { [$0, writesPerWriter, writesPerWriter - 1] })
        try pool.close()
    }

    /// More concurrent readers than connections wait their turn and all complete.
    @Test func readersBeyondPoolSizeWaitTheirTurn() async throws {
        let (directory, pool) = try makeItemsPool(readerCount: 2)
        defer { directory.remove() }
        try await pool.write { db in
            for n in 0..<100 { try db.execute("INSERT INTO items (owner, n) VALUES (0, ?)", binding: n) }
        }
        let sums = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<40 {
                group.addTask { try await pool.read { db in try db.fetchOne(Int.self, "SELECT sum(n) FROM items") ?? 0 } }
            }
            var sums: [Int] = []
            for try await sum in group { sums.append(sum) }
            return sums
        }
        #expect(sums == Array(repeating: 4950, count: 40))
        let syncSums = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<6 {
                group.addTask { try pool.readSync { db in try db.fetchOne(Int.self, "SELECT count(*) FROM items") ?? 0 } }
            }
            var sums: [Int] = []
            for try await sum in group { sums.append(sum) }
            return sums
        }
        #expect(syncSums == Array(repeating: 100, count: 6))
        try pool.close()
    }

    /// Synchronous twins work from plain threads.
    @Test func synchronousTwinsWork() throws {
        let (directory, pool) = try makeItemsPool()
        defer { directory.remove() }
        try pool.writeSync { db in try db.execute("INSERT INTO items (owner, n) VALUES (1, 1)") }
        try pool.writeWithoutTransactionSync { db in
            #expect(!db.isInTransaction)
            try db.execute("INSERT INTO items (owner, n) VALUES (1, 2)")
        }
        #expect(try pool.readSync(Self.count) == 2)
        try pool.close()
        try pool.close()
    }

    /// Checkpointing through the pool empties the WAL.
    @Test func checkpointTruncatesTheWAL() async throws {
        let (directory, pool) = try makeItemsPool()
        defer { directory.remove() }
        try await pool.write { db in try db.execute("INSERT INTO items (owner, n) VALUES (1, 1)") }
        let result = try await pool.checkpoint(.truncate)
        #expect(result.walFrames == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: directory.path("pool.sqlite-wal"))
        #expect((attributes[.size] as? Int) == 0)
        try pool.close()
    }
}
