import StratusLogging
import StratusServer
import StratusSQLite
import Synchronization

/// A counter row that triggers bump on every change to `server_keys` and `api_tokens` (design
/// note 0006, "Key records and the credential generation").
///
/// Triggers, not the store's Swift code, keep it: a revocation by `stratus key revoke` in
/// another process, by an older or newer Stratus, or by hand in the `sqlite3` shell bumps it
/// in the same transaction as the change.
enum SQLiteCredentialGenerationSchema {
    static let migrationIdentifier = "auth-v2-credential-generation"

    static func register(in migrator: inout SQLiteMigrator) {
        migrator.registerMigration(migrationIdentifier) { db in
            try db.execute(
                sql: """
                    -- One row; `generation` grows with every insert, update and delete of a server key or an API token.
                    CREATE TABLE credential_generation (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        generation INTEGER NOT NULL
                    );
                    INSERT INTO credential_generation (id, generation) VALUES (1, 0);
                    """)
            for table in ["server_keys", "api_tokens"] {
                for event in ["INSERT", "UPDATE", "DELETE"] {
                    try db.execute(
                        sql: """
                            CREATE TRIGGER \(table)_\(event.lowercased())_moves_credential_generation AFTER \(event) ON \(table)
                            BEGIN UPDATE credential_generation SET generation = generation + 1 WHERE id = 1; END;
                            """)
                }
            }
        }
    }
}

/// Reads the credential generation on read-only connections of its own, on the caller's thread.
///
/// The read is one row of a one-row table in autocommit mode: in WAL mode it looks at the
/// shared-memory index and the page cache, a few microseconds, without waiting for a pool
/// reader (all of them may be busy with long queries) or hopping to a dispatch queue. It never
/// waits: when every connection is in use it answers `nil` and the caller reads the record itself,
/// and a short busy timeout bounds the rare wait inside SQLite (WAL recovery).
final class SQLiteCredentialGeneration: Sendable {
    /// One connection and the lock that confines it to one thread at a time.
    private final class Slot: Sendable {
        let connection: Mutex<SQLiteConnection?>

        init(_ connection: consuming sending SQLiteConnection) {
            self.connection = Mutex(connection)
        }
    }

    private let slots: [Slot]

    /// Opens `count` connections; the migration that creates the counter must have run.
    init(configuration: SQLiteConfiguration, count: Int = 2, logger: Logger) throws {
        var configuration = configuration
        configuration.busyTimeout = .milliseconds(50)
        var slots: [Slot] = []
        for _ in 0..<max(count, 1) {
            slots.append(Slot(try SQLiteConnection(configuration: configuration, readOnly: true, logger: logger)))
        }
        self.slots = slots
    }

    /// The current generation, or `nil` if every connection is busy.
    ///
    /// - Throws: ``SQLiteError`` if the row cannot be read, or `SQLiteStoreCorruption` when it is missing
    ///   or the store is closed.
    func read() throws -> Int64? {
        try readInPlace { connection in
            guard let generation = try connection.fetchOne(Int64.self, "SELECT generation FROM credential_generation WHERE id = 1") else {
                throw SQLiteStoreCorruption(message: "the credential_generation row is missing")
            }
            return generation
        }
    }

    /// Runs `body` on the first free connection, on the caller's thread; `nil` if every connection
    /// is busy. `body` runs in autocommit unless it opens a transaction itself.
    ///
    /// - Throws: What `body` throws, or `SQLiteStoreCorruption` when the store is closed.
    func readInPlace<T: Sendable>(_ body: @Sendable (SQLiteConnection) throws -> T) throws -> T? {
        for slot in slots {
            let result = try slot.connection.withLockIfAvailable { connection -> T in
                guard let connection else { throw SQLiteStoreCorruption(message: "the credential connections were used after the store closed") }
                return try body(connection)
            }
            if let result { return result }
        }
        return nil
    }

    /// Closes the connections (waiting for reads in progress); later reads throw.
    func close() throws {
        var firstError: (any Error)?
        for slot in slots {
            do {
                try slot.connection.withLock { connection in
                    defer { connection = nil }
                    try connection?.close()
                }
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
    }
}

extension SQLiteRecordStore {
    /// The counter the `server_keys` and `api_tokens` triggers bump, read without the reader pool.
    public func credentialGeneration() throws -> Int64? {
        try credentials.read()
    }
}
