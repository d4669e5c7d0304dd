import Foundation
import StratusSQLite

/// The store's SQLite file: the values this device knows, the changes not yet uploaded, and sync state.
///
/// - `kv_values(key, value)`: the local view (encoded values).
/// - `kv_pending(key, value, seq)`: local changes to upload; `value` NULL is a removal; `seq` orders
///   changes so an upload only clears the row it sent.
/// - `kv_meta(name, value)`: `token` (the zone's sync token), `account` (the zone owner last seen).
struct LocalKeyValueStorage: Sendable {
    let database: SQLiteDatabaseQueue

    /// What the file holds when the store opens.
    struct Snapshot {
        var values: [String: Data] = [:]
        var pending: [String: (value: Data?, seq: Int64)] = [:]
        var meta: [String: String] = [:]
    }

    init(path: String) throws {
        var configuration = SQLiteConfiguration(path: path)
        configuration.journalMode = path == ":memory:" ? .memory : .wal
        database = try SQLiteDatabaseQueue(configuration: configuration)
        try database.writeSync { db in
            try db.execute("CREATE TABLE IF NOT EXISTS kv_values (key TEXT PRIMARY KEY, value BLOB NOT NULL)")
            try db.execute("CREATE TABLE IF NOT EXISTS kv_pending (key TEXT PRIMARY KEY, value BLOB, seq INTEGER NOT NULL)")
            try db.execute("CREATE TABLE IF NOT EXISTS kv_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
        }
    }

    func load() throws -> Snapshot {
        try database.writeSync { db in
            var snapshot = Snapshot()
            try db.forEachRow("SELECT key, value FROM kv_values") { row in
                let key: String = try row[0]
                let value: Data = try row[1]
                snapshot.values[key] = value
            }
            try db.forEachRow("SELECT key, value, seq FROM kv_pending") { row in
                let key: String = try row[0]
                let value: Data? = try row[1]
                let seq: Int64 = try row[2]
                snapshot.pending[key] = (value, seq)
            }
            try db.forEachRow("SELECT name, value FROM kv_meta") { row in
                let name: String = try row[0]
                let value: String = try row[1]
                snapshot.meta[name] = value
            }
            return snapshot
        }
    }

    /// A local `set` or `remove`: the new value and a pending upload, in one transaction.
    func recordLocalChange(key: String, value: Data?, seq: Int64) throws {
        try database.writeSync { db in
            if let value {
                try db.execute("INSERT OR REPLACE INTO kv_values (key, value) VALUES (?, ?)", [key, value])
            } else {
                try db.execute("DELETE FROM kv_values WHERE key = ?", [key])
            }
            try db.execute("INSERT OR REPLACE INTO kv_pending (key, value, seq) VALUES (?, ?, ?)", [key, value, seq])
        }
    }

    /// Server values (nil = removed) applied locally; optionally clears pending rows up to their seq, and sets meta.
    func applyServer(values: [String: Data?], clearPending: [String: Int64] = [:], meta: [String: String?] = [:]) throws {
        try database.writeSync { db in
            for (key, value) in values {
                if let value {
                    try db.execute("INSERT OR REPLACE INTO kv_values (key, value) VALUES (?, ?)", [key, value])
                } else {
                    try db.execute("DELETE FROM kv_values WHERE key = ?", [key])
                }
            }
            for (key, seq) in clearPending {
                try db.execute("DELETE FROM kv_pending WHERE key = ? AND seq <= ?", [key, seq])
            }
            for (name, value) in meta {
                if let value {
                    try db.execute("INSERT OR REPLACE INTO kv_meta (name, value) VALUES (?, ?)", [name, value])
                } else {
                    try db.execute("DELETE FROM kv_meta WHERE name = ?", [name])
                }
            }
        }
    }

    /// Forgets everything (account change).
    func wipe(meta: [String: String]) throws {
        try database.writeSync { db in
            try db.execute("DELETE FROM kv_values")
            try db.execute("DELETE FROM kv_pending")
            try db.execute("DELETE FROM kv_meta")
            for (name, value) in meta {
                try db.execute("INSERT INTO kv_meta (name, value) VALUES (?, ?)", [name, value])
            }
        }
    }
}
