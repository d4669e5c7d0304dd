import Foundation
import StratusClient
import StratusSQLite
import StratusWire

/// A change waiting in the outbox to go to the server.
struct OutboxEntry: Sendable, Equatable {
    enum Kind: String, Sendable { case save, delete }

    var seq: Int64
    var kind: Kind
    var recordType: String
    var recordName: String
    /// Record fields to write (by record field name).
    var fields: [String: FieldValue]
    /// Record fields to remove.
    var cleared: Set<String>
    /// When the edit was made, on the server's timeline.
    var editedAt: Date
}

/// A record as this device last synced it: the merge base and the change tag for the next update.
struct BaseRecord: Sendable {
    var recordType: String
    var record: StratusWire.Record
    var modificationDate: Date?
}

/// The sync bookkeeping in one SQLite file: zone state and change token, last-synced record
/// versions and the durable outbox.
///
/// Calls run synchronously on the caller (the ``SyncController`` actor) through a serial queue.
final class SyncBookkeeping: Sendable {
    let database: SQLiteDatabaseQueue

    init(path: String) throws {
        var configuration = SQLiteConfiguration(path: path)
        configuration.readerCount = 1
        database = try SQLiteDatabaseQueue(configuration: configuration)
        var migrator = SQLiteMigrator()
        migrator.registerMigration("v1 sync bookkeeping") { db in
            try db.execute("CREATE TABLE sync_meta (key TEXT PRIMARY KEY NOT NULL, value BLOB)")
            try db.execute(
                """
                CREATE TABLE sync_base_records (
                    record_name TEXT PRIMARY KEY NOT NULL, record_type TEXT NOT NULL,
                    record BLOB NOT NULL, modified REAL)
                """)
            try db.execute(
                """
                CREATE TABLE sync_outbox (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, record_type TEXT NOT NULL,
                    record_name TEXT NOT NULL, fields BLOB NOT NULL, cleared TEXT NOT NULL, edited_at REAL NOT NULL)
                """)
            try db.execute("CREATE INDEX sync_outbox_by_record ON sync_outbox(record_name)")
        }
        migrator.registerMigration("v2 dangling references") { db in
            try db.execute(
                "CREATE TABLE sync_dangling (target TEXT NOT NULL, source TEXT NOT NULL, PRIMARY KEY (target, source)) WITHOUT ROWID")
        }
        migrator.registerMigration("v3 assets held") { db in
            try db.execute(
                """
                CREATE TABLE sync_assets (
                    record_name TEXT NOT NULL, field TEXT NOT NULL, checksum TEXT NOT NULL, digest TEXT NOT NULL,
                    PRIMARY KEY (record_name, field)) WITHOUT ROWID
                """)
        }
        try database.writeWithoutTransactionSync { try migrator.migrate($0) }
    }

    func close() throws { try database.close() }

    // MARK: Meta

    func meta(_ key: String) throws -> Data? {
        try database.readSync { try $0.fetchOne(Data.self, "SELECT value FROM sync_meta WHERE key = ?", [key]) }
    }

    func setMeta(_ key: String, _ value: Data?) throws {
        try database.writeSync { db in
            if let value {
                try db.execute("INSERT OR REPLACE INTO sync_meta (key, value) VALUES (?, ?)", [key, value])
            } else {
                try db.execute("DELETE FROM sync_meta WHERE key = ?", [key])
            }
        }
    }

    var changeToken: SyncToken? {
        get throws { try meta("changeToken").map { SyncToken(rawValue: String(decoding: $0, as: UTF8.self)) } }
    }

    var lastSyncDate: Date? {
        get throws {
            try meta("lastSyncDate").flatMap { Double(String(decoding: $0, as: UTF8.self)) }.map { Date(timeIntervalSince1970: $0) }
        }
    }

    // MARK: Base records

    func base(_ recordName: String) throws -> BaseRecord? {
        try bases([recordName])[recordName]
    }

    /// The last-synced versions of several records, read in one transaction (absent ones are left out).
    func bases(_ recordNames: [String]) throws -> [String: BaseRecord] {
        let rows = try database.readSync { db in
            try recordNames.compactMap { name in
                try db.fetchOne("SELECT record_type, record, modified FROM sync_base_records WHERE record_name = ?", [name]) { row in
                    (name, try row[0] as String, try row[1] as Data, try row[2] as Double?)
                }
            }
        }
        var found: [String: BaseRecord] = [:]
        for (name, type, data, modified) in rows {
            do {
                let record = try WireCoding.decode(StratusWire.Record.self, from: data)
                found[name] = BaseRecord(recordType: type, record: record, modificationDate: modified.map { Date(timeIntervalSince1970: $0) })
            } catch {
                throw SyncError(.corruptBookkeeping, "the last-synced version of record '\(name)' cannot be read", underlying: error)
            }
        }
        return found
    }

    private static func encode(_ bases: [(String, BaseRecord)]) throws -> [(String, String, Data, Date?)] {
        try bases.map { name, base in (name, base.recordType, try WireCoding.encode(base.record), base.modificationDate) }
    }

    private static func insert(_ bases: [(String, String, Data, Date?)], _ db: SQLiteConnection) throws {
        for (name, type, data, modified) in bases {
            try db.execute(
                "INSERT OR REPLACE INTO sync_base_records (record_name, record_type, record, modified) VALUES (?, ?, ?, ?)",
                [name, type, data, modified?.timeIntervalSince1970])
        }
    }

    /// Commits a fetched batch: new bases, removed bases, the token and the sync date, in one transaction.
    func commit(
        bases: [(String, BaseRecord)], removing removed: [String], dangling: [(String, String)], arrived: [String], token: SyncToken?,
        date: Date
    ) throws {
        let encoded = try Self.encode(bases)
        try database.writeSync { db in
            try Self.insert(encoded, db)
            for name in removed {
                try db.execute("DELETE FROM sync_base_records WHERE record_name = ?", [name])
            }
            for target in arrived {
                try db.execute("DELETE FROM sync_dangling WHERE target = ?", [target])
            }
            for (target, source) in dangling {
                try db.execute("INSERT OR IGNORE INTO sync_dangling (target, source) VALUES (?, ?)", [target, source])
            }
            if let token {
                try db.execute("INSERT OR REPLACE INTO sync_meta (key, value) VALUES ('changeToken', ?)", [Data(token.rawValue.utf8)])
            } else {
                try db.execute("DELETE FROM sync_meta WHERE key = 'changeToken'")
            }
            try db.execute(
                "INSERT OR REPLACE INTO sync_meta (key, value) VALUES ('lastSyncDate', ?)", [Data("\(date.timeIntervalSince1970)".utf8)])
        }
    }

    func setBase(_ name: String, _ base: BaseRecord?) throws {
        guard let base else {
            try database.writeSync { try $0.execute("DELETE FROM sync_base_records WHERE record_name = ?", [name]) }
            return
        }
        try commitUploads(bases: [(name, base)], removingOutbox: [])
    }

    /// Records what a batch upload did, in one transaction: the saved records as their new
    /// last-synced versions, the deleted ones without one, and the outbox entries the server
    /// acknowledged removed.
    func commitUploads(bases: [(String, BaseRecord)], removingBases removed: [String] = [], removingOutbox sequences: [Int64]) throws {
        let encoded = try Self.encode(bases)
        try database.writeSync { db in
            try Self.insert(encoded, db)
            for name in removed {
                try db.execute("DELETE FROM sync_base_records WHERE record_name = ?", [name])
            }
            for seq in sequences {
                try db.execute("DELETE FROM sync_outbox WHERE seq = ?", [seq])
            }
        }
    }

    /// Every record with a last-synced version: (name, record type).
    func baseNames() throws -> [(String, String)] {
        try database.readSync { db in
            try db.fetchAll("SELECT record_name, record_type FROM sync_base_records") { row in (try row[0] as String, try row[1] as String) }
        }
    }

    /// The records waiting for any of `targets`: (target, source).
    func danglingSources(of targets: [String]) throws -> [(String, String)] {
        guard !targets.isEmpty else { return [] }
        return try database.readSync { db in
            var found: [(String, String)] = []
            for target in targets {
                found += try db.fetchAll("SELECT target, source FROM sync_dangling WHERE target = ?", [target]) { row in
                    (try row[0] as String, try row[1] as String)
                }
            }
            return found
        }
    }

    // MARK: Outbox

    /// Appends changes in order, in one transaction, each folded into a waiting save of the same
    /// record when there is one (so one object saved fifteen times is one upload). Returns each
    /// entry's sequence number.
    func enqueue(_ entries: [OutboxEntry], coalescingAfter inFlight: Int64?) throws -> [Int64] {
        let encoded = try entries.map { entry in
            (entry, try WireCoding.encode(StratusWire.Record(fields: entry.fields)), entry.cleared.sorted().joined(separator: "\n"))
        }
        let floor = inFlight ?? 0
        return try database.writeSync { db in
            try encoded.map { entry, fields, cleared in
                try Self.enqueue(entry, fields: fields, cleared: cleared, after: floor, db)
            }
        }
    }

    /// Appends one change (see ``enqueue(_:coalescingAfter:)``); returns its sequence number.
    func enqueue(_ entry: OutboxEntry, coalescingAfter inFlight: Int64?) throws -> Int64 {
        try enqueue([entry], coalescingAfter: inFlight)[0]
    }

    private static func enqueue(_ entry: OutboxEntry, fields: Data, cleared: String, after floor: Int64, _ db: SQLiteConnection) throws -> Int64 {
        let last = try db.fetchOne(
            "SELECT seq, kind, fields, cleared FROM sync_outbox WHERE record_name = ? ORDER BY seq DESC LIMIT 1", [entry.recordName]
        ) { row in (try row[0] as Int64, try row[1] as String, try row[2] as Data, try row[3] as String) }
        if let last, last.0 > floor, last.1 == OutboxEntry.Kind.save.rawValue, entry.kind == .save {
            var previous = try WireCoding.decode(StratusWire.Record.self, from: last.2).fields ?? [:]
            var previousCleared = Set(last.3.split(separator: "\n").map(String.init))
            for (key, value) in entry.fields {
                previous[key] = value
                previousCleared.remove(key)
            }
            for key in entry.cleared {
                previous[key] = nil
                previousCleared.insert(key)
            }
            let merged = try WireCoding.encode(StratusWire.Record(fields: previous))
            try db.execute(
                "UPDATE sync_outbox SET fields = ?, cleared = ?, edited_at = ? WHERE seq = ?",
                [merged, previousCleared.sorted().joined(separator: "\n"), entry.editedAt.timeIntervalSince1970, last.0])
            return last.0
        }
        try db.execute(
            "INSERT INTO sync_outbox (kind, record_type, record_name, fields, cleared, edited_at) VALUES (?, ?, ?, ?, ?, ?)",
            [entry.kind.rawValue, entry.recordType, entry.recordName, fields, cleared, entry.editedAt.timeIntervalSince1970])
        return db.lastInsertRowID
    }

    /// The oldest entries of the outbox, in order.
    func outboxEntries(limit: Int) throws -> [OutboxEntry] {
        let rows = try database.readSync { db in
            try db.fetchAll(
                "SELECT seq, kind, record_type, record_name, fields, cleared, edited_at FROM sync_outbox ORDER BY seq LIMIT ?", [limit]
            ) { row in
                (
                    try row[0] as Int64, try row[1] as String, try row[2] as String, try row[3] as String, try row[4] as Data,
                    try row[5] as String, try row[6] as Double
                )
            }
        }
        return try rows.map(Self.entry)
    }

    private static func entry(
        _ row: (Int64, String, String, String, Data, String, Double)
    ) throws -> OutboxEntry {
        guard let kind = OutboxEntry.Kind(rawValue: row.1) else {
            throw SyncError(.corruptBookkeeping, "outbox entry \(row.0) has an unknown kind '\(row.1)'")
        }
        let fields: [String: FieldValue]
        do {
            fields = try WireCoding.decode(StratusWire.Record.self, from: row.4).fields ?? [:]
        } catch {
            throw SyncError(.corruptBookkeeping, "outbox entry \(row.0) for record '\(row.3)' cannot be read", underlying: error)
        }
        return OutboxEntry(
            seq: row.0, kind: kind, recordType: row.2, recordName: row.3, fields: fields,
            cleared: Set(row.5.split(separator: "\n").map(String.init)), editedAt: Date(timeIntervalSince1970: row.6))
    }

    func removeOutboxEntry(_ seq: Int64) throws {
        try database.writeSync { try $0.execute("DELETE FROM sync_outbox WHERE seq = ?", [seq]) }
    }

    func outboxCount() throws -> Int {
        try database.readSync { try $0.fetchOne(Int.self, "SELECT count(*) FROM sync_outbox") } ?? 0
    }

    func hasPendingChanges(for recordName: String) throws -> Bool {
        try database.readSync { try $0.fetchOne(Int.self, "SELECT count(*) FROM sync_outbox WHERE record_name = ?", [recordName]) ?? 0 > 0 }
    }
}
