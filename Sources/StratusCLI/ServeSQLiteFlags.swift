import StratusServerSQLite

/// The flags of `stratus serve` that size the SQLite store's memory: reader connections, page
/// caches and the memory map (Documentation/0002-record-store.md, "Memory").
///
/// One job: these flags' names, their usage text, and reading them into a ``SQLiteStoreMemory``.
enum ServeSQLiteFlags {
    static let names = ["sqlite-readers", "sqlite-cache-mb", "sqlite-reader-cache-mb", "sqlite-mmap-mb"]

    static let usage: String = {
        let defaults = SQLiteStoreMemory()
        return """
            SQLite memory (not with --database): --sqlite-readers (\(defaults.readerCount)) read-only connections
            serve queries and feeds in parallel next to the one writer; --sqlite-cache-mb (\(defaults.writerCacheKiB >> 10)) is the
            writer's page cache and --sqlite-reader-cache-mb (\(defaults.readerCacheKiB >> 10)) each reader's; --sqlite-mmap-mb
            (\(defaults.mmapBytes >> 20); 0 maps nothing) maps that much of the database file into each connection. All of it
            counts in the server's resident memory; none of it changes results or durability.
            """
    }()

    /// Reads the flags; the defaults are ``SQLiteStoreMemory``'s.
    ///
    /// - Parameter isPostgres: Whether the records live in PostgreSQL, where these flags mean nothing.
    /// - Throws: ``CLIError`` naming the flag when a value is not a whole number in range, or when
    ///   one is given with PostgreSQL.
    static func memory(_ options: Options, isPostgres: Bool) throws -> SQLiteStoreMemory {
        if isPostgres {
            let given = names.filter { !options.string($0, default: "").isEmpty }
            guard given.isEmpty else {
                throw CLIError(
                    "\(given.map { "--" + $0 }.joined(separator: ", ")) size the SQLite store, and --database keeps the records in PostgreSQL; drop them")
            }
        }
        var memory = SQLiteStoreMemory()
        memory.readerCount = try options.integer("sqlite-readers", default: memory.readerCount, in: 1...64)
        memory.writerCacheKiB = try options.integer("sqlite-cache-mb", default: memory.writerCacheKiB >> 10, in: 1...65_536) << 10
        memory.readerCacheKiB = try options.integer("sqlite-reader-cache-mb", default: memory.readerCacheKiB >> 10, in: 1...65_536) << 10
        memory.mmapBytes = try options.integer("sqlite-mmap-mb", default: memory.mmapBytes >> 20, in: 0...1_048_576) << 20
        return memory
    }
}
