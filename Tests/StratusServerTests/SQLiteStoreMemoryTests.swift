import Foundation
@testable import StratusServerSQLite
import StratusSQLite
import StratusTesting
import Testing

/// `SQLiteStoreMemory` reaches every connection of the store: the reader count, both page caches
/// and the memory map, read back from SQLite itself.
@Suite struct SQLiteStoreMemoryTests {
    /// Non-default settings are what the writer and the readers report.
    @Test func settingsReachTheWriterAndTheReaders() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-store-memory")
        defer { directory.remove() }
        let memory = SQLiteStoreMemory(readerCount: 2, writerCacheKiB: 4096, readerCacheKiB: 1024, mmapBytes: 0)
        let store = try await SQLiteRecordStore.open(path: directory.path("stratus.sqlite"), memory: memory)
        #expect(store.pool.configuration.readerCount == 2)
        let writer = try await store.pool.writeWithoutTransaction { db in
            (try db.fetchOne(Int.self, "PRAGMA cache_size"), try db.fetchOne(Int.self, "PRAGMA mmap_size"))
        }
        #expect(writer.0 == -4096)
        #expect(writer.1 == 0)
        // Two reads that wait for each other inside their transactions hold both readers at once.
        let arrived = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
        let readers = try await withThrowingTaskGroup(of: [Int?].self) { group in
            for index in 0..<2 {
                group.addTask {
                    try await store.pool.read { db in
                        arrived[index].signal()
                        let overlapped = arrived[1 - index].wait(timeout: .now() + 10) == .success
                        return [overlapped ? 1 : 0, try db.fetchOne(Int.self, "PRAGMA cache_size"), try db.fetchOne(Int.self, "PRAGMA mmap_size")]
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(readers == [[1, -1024, 0], [1, -1024, 0]])
        try await store.close()
    }

    /// The defaults are the ones documented for `stratus serve` (0002, "Memory").
    @Test func defaultsAreAppliedWhenNothingIsGiven() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-store-memory")
        defer { directory.remove() }
        let defaults = SQLiteStoreMemory()
        let store = try await SQLiteRecordStore.open(path: directory.path("stratus.sqlite"))
        #expect(store.pool.configuration.readerCount == defaults.readerCount)
        let writer = try await store.pool.writeWithoutTransaction { db in try db.fetchOne(Int.self, "PRAGMA cache_size") }
        #expect(writer == -defaults.writerCacheKiB)
        let reader = try await store.pool.read { db in
            (try db.fetchOne(Int.self, "PRAGMA cache_size"), try db.fetchOne(Int.self, "PRAGMA mmap_size"))
        }
        #expect(reader.0 == -defaults.readerCacheKiB)
        #expect(reader.1 == defaults.mmapBytes)
        try await store.close()
    }
}
