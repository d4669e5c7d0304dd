import Foundation
import StratusClient
import StratusSQLite
import StratusWire
import Synchronization

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

/// What one delivery writes to the bookkeeping, in one transaction (``SyncBookkeeping/commit(_:inFlight:)``).
struct BookkeepingCommit: Sendable {
    /// What becomes of the change token.
    enum TokenChange: Sendable {
        case keep
        case set(SyncToken)
        case clear
    }

    /// Last-synced versions to write.
    var bases: [(String, BaseRecord)] = []
    /// Last-synced versions to remove.
    var removedBases: [String] = []
    /// References whose target is missing: (target, source).
    var dangling: [(String, String)] = []
    /// Targets that arrived, whose dangling rows go.
    var arrived: [String] = []
    /// Saves to queue again (recovery: records the server lost).
    var requeue: [OutboxEntry] = []
    /// Outbox entries to drop (an edit of a record whose deletion won).
    var droppedOutbox: [Int64] = []
    /// Write-back markers whose record the local store now holds.
    var writeBacksDone: [String] = []
    var token: TokenChange = .keep
    /// The sync date to record, if any.
    var date: Date?
    /// Whether this commit finishes a recovery.
    var endsRecovery = false
}

/// The sync bookkeeping in one SQLite file: zone state and change token, last-synced record
/// versions and the durable outbox.
///
/// Calls run synchronously on the caller (the ``SyncController`` actor) through a serial queue.
final class SyncBookkeeping: Sendable {
    let database: SQLiteDatabaseQueue
    /// Counts the writes that touched the outbox: a reader that took a snapshot of it (a delivery
    /// checking many fetched records at once) knows the snapshot still holds while this has not moved.
    private let outboxWrites = Mutex<UInt64>(0)

    /// The number of outbox writes so far (``outboxWrites``).
    var outboxVersion: UInt64 { outboxWrites.withLock { $0 } }

    /// Notes a write that touched the outbox.
    func outboxChanged() {
        outboxWrites.withLock { $0 &+= 1 }
    }

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
        migrator.registerMigration("v4 write-backs") { db in
            try db.execute("CREATE TABLE sync_writeback (record_name TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID")
        }
        try database.writeWithoutTransactionSync { try migrator.migrate($0) }
    }

    func close() throws { try database.close() }

    // MARK: Meta

    /// Keys of `sync_meta`.
    enum Meta {
        /// Set when the server contradicted what this device synced (its zone is gone, its token
        /// refused), until a full fetch has re-queued whatever the server lost.
        static let recovery = "recoverZone"
        /// Server time minus device time, as last observed (seconds, as text).
        static let clockSkew = "clockSkew"
        /// Set when an upload failed without an answer (it may have been applied), until a fetch
        /// has shown what became of its records since.
        static let uploadUncertain = "uploadUncertain"
    }

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

    /// Server time minus device time, as last observed; 0 before the first upload.
    var clockSkew: TimeInterval {
        get throws { try meta(Meta.clockSkew).flatMap { Double(String(decoding: $0, as: UTF8.self)) } ?? 0 }
    }

    func setClockSkew(_ skew: TimeInterval) throws {
        try setMeta(Meta.clockSkew, Data("\(skew)".utf8))
    }

    /// Whether an upload may have been applied without this device hearing of it (``Meta/uploadUncertain``).
    var uploadUncertain: Bool {
        get throws { try meta(Meta.uploadUncertain) != nil }
    }

    func setUploadUncertain(_ uncertain: Bool) throws {
        try setMeta(Meta.uploadUncertain, uncertain ? Data("1".utf8) : nil)
    }

    /// Whether a recovery is due (``Meta/recovery``).
    var recoveryPending: Bool {
        get throws { try meta(Meta.recovery) != nil }
    }

    /// Records that the server lost what this device synced: the zone must be made again (the
    /// created flag goes), and the next sync re-queues what the server no longer has.
    func beginRecovery() throws {
        try database.writeSync { db in
            try db.execute("DELETE FROM sync_meta WHERE key = 'zoneCreated'")
            try db.execute("INSERT OR REPLACE INTO sync_meta (key, value) VALUES (?, ?)", [Meta.recovery, Data("1".utf8)])
        }
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

    /// Commits what a delivery did (a fetched batch, a recovery, a write-back), in one transaction.
    ///
    /// - Parameters:
    ///   - change: The bases, outbox entries, markers and token to write.
    ///   - inFlight: The outbox entry being uploaded now (a re-queued save never folds into it).
    func commit(_ change: BookkeepingCommit, inFlight: Int64?) throws {
        let encoded = try Self.encode(change.bases)
        let requeued = try Self.encodeEntries(change.requeue)
        defer { outboxChanged() }
        try database.writeSync { db in
            try Self.insert(encoded, db)
            for name in change.removedBases {
                try db.execute("DELETE FROM sync_base_records WHERE record_name = ?", [name])
            }
            for target in change.arrived {
                try db.execute("DELETE FROM sync_dangling WHERE target = ?", [target])
            }
            for (target, source) in change.dangling {
                try db.execute("INSERT OR IGNORE INTO sync_dangling (target, source) VALUES (?, ?)", [target, source])
            }
            for seq in change.droppedOutbox {
                try db.execute("DELETE FROM sync_outbox WHERE seq = ?", [seq])
            }
            for (entry, fields, cleared) in requeued {
                _ = try Self.enqueue(entry, fields: fields, cleared: cleared, after: inFlight ?? 0, db)
            }
            for name in change.writeBacksDone {
                try db.execute("DELETE FROM sync_writeback WHERE record_name = ?", [name])
            }
            switch change.token {
            case .keep: break
            case .set(let token):
                try db.execute("INSERT OR REPLACE INTO sync_meta (key, value) VALUES ('changeToken', ?)", [Data(token.rawValue.utf8)])
            case .clear:
                try db.execute("DELETE FROM sync_meta WHERE key = 'changeToken'")
            }
            if let date = change.date {
                try db.execute(
                    "INSERT OR REPLACE INTO sync_meta (key, value) VALUES ('lastSyncDate', ?)", [Data("\(date.timeIntervalSince1970)".utf8)])
            }
            if change.endsRecovery {
                try db.execute("DELETE FROM sync_meta WHERE key = ?", [Meta.recovery])
            }
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
    /// last-synced versions, the deleted ones without one, the outbox entries the server
    /// acknowledged removed, and the records whose resolved version the local store must receive
    /// (``writeBackNames()``), so a crash before the store has them resumes the write at the next drain.
    func commitUploads(
        bases: [(String, BaseRecord)], removingBases removed: [String] = [], removingOutbox sequences: [Int64], writeBacks: [String] = []
    ) throws {
        let encoded = try Self.encode(bases)
        defer { outboxChanged() }
        try database.writeSync { db in
            try Self.insert(encoded, db)
            for name in removed {
                try db.execute("DELETE FROM sync_base_records WHERE record_name = ?", [name])
                try db.execute("DELETE FROM sync_writeback WHERE record_name = ?", [name])
            }
            for seq in sequences {
                try db.execute("DELETE FROM sync_outbox WHERE seq = ?", [seq])
            }
            for name in writeBacks {
                try db.execute("INSERT OR IGNORE INTO sync_writeback (record_name) VALUES (?)", [name])
            }
        }
    }

    /// The records whose resolved version (their last-synced version) the local store has not received yet.
    func writeBackNames() throws -> [String] {
        try database.readSync { db in
            try db.fetchAll("SELECT record_name FROM sync_writeback ORDER BY record_name") { row in try row[0] as String }
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
            // Usually none waits (an initial sync asks about every record it received).
            guard try db.fetchOne(Int.self, "SELECT EXISTS (SELECT 1 FROM sync_dangling)") == 1 else { return found }
            for target in targets {
                found += try db.fetchAll("SELECT target, source FROM sync_dangling WHERE target = ?", [target]) { row in
                    (try row[0] as String, try row[1] as String)
                }
            }
            return found
        }
    }
}
