import Foundation
import StratusClient
import StratusSQLite
import StratusWire

extension SyncBookkeeping {
    // MARK: Outbox

    /// Appends changes in order, in one transaction, each folded into a waiting save of the same
    /// record when there is one (so one object saved fifteen times is one upload). Returns each
    /// entry's sequence number.
    func enqueue(_ entries: [OutboxEntry], coalescingAfter inFlight: Int64?) throws -> [Int64] {
        let encoded = try Self.encodeEntries(entries)
        let floor = inFlight ?? 0
        defer { outboxChanged() }
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

    /// Entries with their fields and cleared keys as stored.
    static func encodeEntries(_ entries: [OutboxEntry]) throws -> [(OutboxEntry, Data, String)] {
        try entries.map { entry in
            (entry, try WireCoding.encode(StratusWire.Record(fields: entry.fields)), entry.cleared.sorted().joined(separator: "\n"))
        }
    }

    static func enqueue(_ entry: OutboxEntry, fields: Data, cleared: String, after floor: Int64, _ db: SQLiteConnection) throws -> Int64 {
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
            // The entry keeps its latest edit time: a recheck (an older, base-dated save) folding into a
            // newer edit must not make that edit look older.
            try db.execute(
                "UPDATE sync_outbox SET fields = ?, cleared = ?, edited_at = max(edited_at, ?) WHERE seq = ?",
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
        defer { outboxChanged() }
        try database.writeSync { try $0.execute("DELETE FROM sync_outbox WHERE seq = ?", [seq]) }
    }

    func outboxCount() throws -> Int {
        try database.readSync { try $0.fetchOne(Int.self, "SELECT count(*) FROM sync_outbox") } ?? 0
    }

    /// The outbox entries of one record, oldest first.
    func outboxEntries(for recordName: String) throws -> [OutboxEntry] {
        try outboxEntries(for: [recordName])[recordName] ?? []
    }

    /// The outbox entries of several records, each record's oldest first, read in one transaction
    /// (records without any are left out): a delivery of 100,000 fetched records paid one read each.
    func outboxEntries(for recordNames: some Collection<String>) throws -> [String: [OutboxEntry]] {
        let rows = try database.readSync { db in
            var rows: [(Int64, String, String, String, Data, String, Double)] = []
            for name in recordNames {
                rows += try db.fetchAll(
                    "SELECT seq, kind, record_type, record_name, fields, cleared, edited_at FROM sync_outbox WHERE record_name = ? ORDER BY seq",
                    [name]
                ) { row in
                    (
                        try row[0] as Int64, try row[1] as String, try row[2] as String, try row[3] as String, try row[4] as Data,
                        try row[5] as String, try row[6] as Double
                    )
                }
            }
            return rows
        }
        var found: [String: [OutboxEntry]] = [:]
        for row in rows { found[row.3, default: []].append(try Self.entry(row)) }
        return found
    }

    /// Whether `entry` still waits in the outbox (a fetch's commit may have dropped it).
    func isQueued(_ entry: OutboxEntry) throws -> Bool {
        try outboxEntries(for: entry.recordName).contains { $0.seq == entry.seq }
    }

    func hasPendingChanges(for recordName: String) throws -> Bool {
        try database.readSync { try $0.fetchOne(Int.self, "SELECT count(*) FROM sync_outbox WHERE record_name = ?", [recordName]) ?? 0 > 0 }
    }
}
