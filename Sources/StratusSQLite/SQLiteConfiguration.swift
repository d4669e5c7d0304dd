/// How to open and set up SQLite connections: the file, the pool size, durability and tuning.
///
/// ```swift
/// var configuration = SQLiteConfiguration(path: "/var/lib/stratus/records.sqlite")
/// configuration.readerCount = 4
/// configuration.prepareConnection = { db in try db.execute(sql: "PRAGMA temp_store = MEMORY") }
/// let pool = try SQLiteDatabasePool(configuration: configuration, logger: logger)
/// ```
///
/// ## Durability
///
/// ``SQLiteDatabasePool`` always runs in WAL mode. With the default
/// ``Synchronous-swift.enum/normal``, a committed transaction survives the *process*
/// being killed (even `kill -9`): the commit has been written to the WAL file, and the
/// operating system keeps it. It may be lost only if the *machine* loses power or the
/// kernel crashes before the next checkpoint syncs the WAL; the database stays
/// consistent either way. Choose ``Synchronous-swift.enum/full`` to make each commit
/// durable against power loss too, at the cost of an `fsync` per commit.
///
/// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_synchronous>,
/// <https://www.sqlite.org/wal.html>
public struct SQLiteConfiguration: Sendable {
    /// The database file; `":memory:"` for a private in-memory database (single connection only).
    public var path: String
    /// How many read-only connections ``SQLiteDatabasePool`` opens next to its writer; 4 by default.
    public var readerCount: Int = 4
    /// The journal mode of connections that are not in a pool; pools always use ``JournalMode-swift.enum/wal``.
    public var journalMode: JournalMode = .wal
    /// When SQLite waits for the disk; ``Synchronous-swift.enum/normal`` by default (see Durability above).
    public var synchronous: Synchronous = .normal
    /// How long a statement waits for a lock held by another connection before failing with ``SQLiteError/Code/busy``; 5 s by default.
    public var busyTimeout: Duration = .seconds(5)
    /// Whether `FOREIGN KEY` constraints are enforced; `true` by default.
    public var foreignKeys: Bool = true
    /// The page cache size per connection in KiB (`PRAGMA cache_size = -N`); `nil` keeps SQLite's default (2 MiB).
    public var cacheSizeKiB: Int?
    /// The page cache size of each read-only connection in KiB, when it should differ from
    /// ``cacheSizeKiB`` (a writer that fills B-trees wants more than readers that find pages in
    /// the operating system's cache); `nil` (the default) uses ``cacheSizeKiB``.
    public var readerCacheSizeKiB: Int?
    /// The maximum bytes of the file to memory-map (`PRAGMA mmap_size`); `nil` keeps SQLite's default (0, off).
    public var mmapSize: Int?
    /// How many statements each connection keeps prepared in its cache; 256 by default.
    ///
    /// When the cache is full it is emptied; statements still held by callers stay valid.
    public var statementCacheCapacity: Int = 256
    /// The permission bits of the database file and its `-wal` and `-shm` companions, such as
    /// `0o600` for a file only its owner may read; `nil` (the default) leaves them to SQLite and
    /// the process's umask (usually `0o644`, readable by everyone).
    ///
    /// A writable connection applies them before it opens the file: a new file is created with
    /// them, an existing one (and companions left by an earlier run) is changed to them. SQLite
    /// gives the `-wal` and `-shm` files it creates later the database file's permissions.
    public var fileMode: UInt16?
    /// Runs once on every new connection (the writer and each reader), after the settings above.
    ///
    /// Use it to register functions or set pragmas. Readers are read-only: do not write here
    /// unless you check ``SQLiteConnection/isReadOnly``.
    public var prepareConnection: (@Sendable (SQLiteConnection) throws -> Void)?

    /// A configuration with the defaults for the database at `path`.
    ///
    /// - Parameter path: The database file, or `":memory:"`.
    public init(path: String) {
        self.path = path
    }

    /// The journal mode (`PRAGMA journal_mode`).
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_journal_mode>
    public enum JournalMode: String, Sendable {
        /// Write-ahead log: readers do not block the writer nor the writer readers.
        case wal = "WAL"
        /// A rollback journal deleted at the end of each transaction (SQLite's default).
        case delete = "DELETE"
        /// Journal kept in memory: a crash mid-transaction can corrupt the file.
        case memory = "MEMORY"
    }

    /// When SQLite waits for data to reach the disk (`PRAGMA synchronous`).
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/pragma.html#pragma_synchronous>
    public enum Synchronous: String, Sendable {
        /// Never syncs: a power loss or OS crash can corrupt the database.
        case off = "OFF"
        /// In WAL mode, syncs at checkpoints only: survives a process kill; a power loss may
        /// lose the latest commits but never corrupts.
        case normal = "NORMAL"
        /// Syncs the WAL at every commit: durable against power loss.
        case full = "FULL"
        /// Like ``full`` and also syncs the directory after unlinking a rollback journal.
        case extra = "EXTRA"
    }
}
