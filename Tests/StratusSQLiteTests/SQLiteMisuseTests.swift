import StratusSQLite
import StratusTesting
import Testing

@Suite struct SQLiteMisuseTests {
    /// A synchronous write started from inside a write on the same connection stops the program instead of deadlocking.
    @Test func reentrantWriteSyncStopsTheProgram() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let queue = try SQLiteDatabaseQueue(configuration: SQLiteConfiguration(path: ":memory:"))
            try queue.writeSync { _ in
                try queue.writeSync { _ in }
            }
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("re-entrant database access"))
    }

    /// A queue used after `close()` (work still in flight when its owner shut down) throws
    /// `misuse` on every path, sync and async, instead of stopping the program.
    @Test func aClosedQueueThrowsMisuseOnEveryPath() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-closed-queue")
        defer { directory.remove() }
        let queue = try SQLiteDatabaseQueue(configuration: SQLiteConfiguration(path: directory.path("closed.sqlite")))
        try queue.writeSync { try $0.execute("CREATE TABLE t (x INTEGER)") }
        try queue.close()
        try queue.close()
        let attempts: [@Sendable () async throws -> Void] = [
            { _ = try queue.readSync { try $0.fetchOne(Int.self, "SELECT count(*) FROM t") } },
            { try queue.writeSync { try $0.execute("INSERT INTO t VALUES (1)") } },
            { try queue.writeWithoutTransactionSync { try $0.execute("PRAGMA user_version = 2") } },
            { _ = try await queue.read { try $0.fetchOne(Int.self, "SELECT count(*) FROM t") } },
            { try await queue.write { try $0.execute("INSERT INTO t VALUES (1)") } },
            { try await queue.writeWithoutTransaction { try $0.execute("PRAGMA user_version = 2") } },
        ]
        for attempt in attempts {
            let error = await #expect(throws: SQLiteError.self) { try await attempt() }
            #expect(error?.code == .misuse && error?.message.contains("closed.sqlite") == true, "\(String(describing: error))")
        }
    }

    /// Opening a transaction inside a transaction stops the program: savepoints are the way to nest.
    @Test func nestedTransactionStopsTheProgram() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let db = try SQLiteConnection(path: ":memory:")
            try db.transaction { db in
                try db.transaction { _ in }
            }
        }
        #expect(String(decoding: result.standardErrorContent, as: UTF8.self).contains("use savepoint"))
    }
}
