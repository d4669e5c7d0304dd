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
