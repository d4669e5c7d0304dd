import StratusSQLite

/// How much memory the SQLite store may hold: reader connections, page caches and the memory map.
///
/// Everything here counts in the server's resident memory, and none of it changes results or
/// durability — only how often SQLite asks the operating system for a page it has in its own
/// file cache anyway. `stratus serve` sets it with `--sqlite-readers`, `--sqlite-cache-mb`,
/// `--sqlite-reader-cache-mb` and `--sqlite-mmap-mb` (Documentation/0002-record-store.md,
/// "Memory"; the measurements are in Benchmarks/README.md, "Memory of `stratus serve`").
///
/// ```swift
/// var memory = SQLiteStoreMemory()
/// memory.mmapBytes = 0              // read pages with read(2) instead of mapping the file
/// memory.readerCacheKiB = 2 * 1024  // 2 MiB of page cache per reader
/// let store = try await SQLiteRecordStore.open(path: "./.stratus/stratus.sqlite", memory: memory)
/// ```
public struct SQLiteStoreMemory: Sendable, Equatable {
    /// Read-only connections next to the writer; queries and feeds run on them in parallel.
    public var readerCount: Int
    /// The writer's page cache in KiB: record and index B-tree pages a batch of writes revisits.
    public var writerCacheKiB: Int
    /// Each reader's page cache in KiB.
    public var readerCacheKiB: Int
    /// How many bytes of the database file each connection maps into memory (`PRAGMA mmap_size`);
    /// `0` reads pages with `read(2)` instead. Every mapped page a query touches counts in the
    /// process's resident memory (shared between the connections, and reclaimable by the kernel).
    public var mmapBytes: Int

    /// The defaults `stratus serve` uses: 2 readers, 4 MiB of page cache each and for the
    /// writer, no memory map (measured in Benchmarks/README.md, "Memory of `stratus serve`": the
    /// peak of the RecordsBench workload ~178 → ~104 MiB with 16 MiB caches and no map, ~71 → ~59
    /// MiB with 4 MiB caches, the 100,000-record load and the index build at the same server CPU
    /// time, the filtered + sorted queries within noise). Past the cache, SQLite reads pages with
    /// `read(2)` from the kernel's file cache, which does not count in the process.
    ///
    /// - Parameters:
    ///   - readerCount: Read-only connections; at least 1.
    ///   - writerCacheKiB: The writer's page cache.
    ///   - readerCacheKiB: Each reader's page cache.
    ///   - mmapBytes: The memory map of each connection; `0` for none.
    public init(readerCount: Int = 2, writerCacheKiB: Int = 4 * 1024, readerCacheKiB: Int = 4 * 1024, mmapBytes: Int = 0) {
        self.readerCount = readerCount
        self.writerCacheKiB = writerCacheKiB
        self.readerCacheKiB = readerCacheKiB
        self.mmapBytes = mmapBytes
    }

    /// These settings on a connection configuration.
    func apply(to configuration: inout SQLiteConfiguration) {
        configuration.readerCount = max(readerCount, 1)
        configuration.cacheSizeKiB = max(writerCacheKiB, 0)
        configuration.readerCacheSizeKiB = max(readerCacheKiB, 0)
        configuration.mmapSize = max(mmapBytes, 0)
    }
}
