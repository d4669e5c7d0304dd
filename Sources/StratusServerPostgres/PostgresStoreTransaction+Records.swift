import Foundation
import StratusPostgres
import StratusServer
import StratusServerSQL
import StratusSQL
import StratusWire

/// Records, tombstones and references on PostgreSQL.
extension PostgresStoreTransaction {
    static let recordColumns = SQLStoredRows.recordColumns
    /// How many columns ``recordColumns`` names; a query's own columns follow them.
    static let recordColumnCount = SQLStoredRows.recordColumnCount

    static func record(_ row: PostgresRow) throws -> StoredRecord {
        try SQLStoredRows.record(row, dialect: .postgres)
    }

    func record(named name: String, inZone zoneRowID: Int64) throws -> StoredRecord? {
        if isWriting, let cached = cache.record(named: name, inZone: zoneRowID) { return cached }
        try lockZone(zoneRowID)
        return try first("SELECT \(Self.recordColumns) FROM records WHERE zone_id = $1 AND record_name = $2", [zoneRowID, name]).map(Self.record)
    }

    /// Locks the zone, reads its change counter and every named record in one round trip, and
    /// keeps them (`cache`) for the rest of the transaction: a batch's records then cost no
    /// further reads, and its change sequences are counted in memory.
    func prefetchRecords(named names: [String], inZone zoneRowID: Int64) throws {
        guard isWriting else { return }
        let names = names + takeGroupReads(inZone: zoneRowID)
        let wanted = Array(Set(names.filter { !cache.contains(named: $0, inZone: zoneRowID) })).sorted()
        let knowsCounter = lockedZones.contains(zoneRowID) && cache.counters[zoneRowID] != nil
        guard !wanted.isEmpty || !knowsCounter else { return }
        try claimLock(onZone: zoneRowID)
        // The lock first (FOR UPDATE, again if already held: harmless), then the reads and the
        // announced subscription questions, in one pipeline.
        let questions = probes.statements()
        let results = try tracking {
            try db.pipeline(
                [
                    PostgresStatement("SELECT \(Self.zoneColumns) FROM zones WHERE id = $1 AND NOT deleted FOR UPDATE", [zoneRowID], prepared: true),
                    PostgresStatement(
                        "SELECT \(Self.recordColumns) FROM records WHERE zone_id = $1 AND record_name = ANY($2::text[])",
                        [zoneRowID, PostgresArray(wanted)], prepared: true
                    ),
                ] + questions.statements
            )
        }
        try probes.answer(questions.keys, rows: Array(results.dropFirst(2)))
        // A zone deleted meanwhile: nothing is cached, and the writes fail as without the hint.
        guard let zoneRow = results[0].first else { return }
        let zone = try Self.zone(zoneRow)
        lockedZones.insert(zoneRowID)
        rememberLocked(zone)
        if !knowsCounter { cache.learnCounter(zone.changeSequence, ofZone: zoneRowID) }
        var found: [String: StoredRecord] = [:]
        for row in results[1] {
            let record = try Self.record(row)
            found[record.recordName] = record
        }
        for name in wanted { cache.remember(found[name], named: name, inZone: zoneRowID) }
    }

    func recordChanges(inZone zoneRowID: Int64, after sequence: Int64, limit: Int, recordTypes: Set<String>?) throws -> [StoredRecord] {
        guard let recordTypes else {
            return try query(
                "SELECT \(Self.recordColumns) FROM records WHERE zone_id = $1 AND seq > $2 ORDER BY seq LIMIT $3", [zoneRowID, sequence, limit]
            ).map(Self.record)
        }
        guard !recordTypes.isEmpty else { return [] }
        return try query(
            "SELECT \(Self.recordColumns) FROM records WHERE zone_id = $1 AND seq > $2 AND record_type = ANY($3::text[]) ORDER BY seq LIMIT $4",
            [zoneRowID, sequence, PostgresArray(recordTypes.sorted()), limit]
        ).map(Self.record)
    }

    func references(toRecord name: String, inZone zoneRowID: Int64) throws -> [ReferenceEdge] {
        try lockZone(zoneRowID)
        return try query(
            "SELECT source_name, field_name, action FROM record_refs WHERE zone_id = $1 AND target_name = $2 ORDER BY source_name, field_name",
            [zoneRowID, name]
        ).map { row in
            ReferenceEdge(
                sourceZoneRowID: zoneRowID, sourceRecordName: try row[0], fieldName: try row[1], targetZoneRowID: zoneRowID,
                targetRecordName: name, action: ReferenceAction(rawValue: try row[2])
            )
        }
    }

    /// Buffers the record's row, its references and its index rows (`writes`): a batch's records go
    /// out as one multi-row statement per table, ahead of the next statement sent (or the `COMMIT`).
    func putRecord(_ record: StoredRecord, references: [ReferenceEdge]) throws {
        try lockZone(record.zoneRowID)
        let body = try SQLStoredRows.encodeFields(record.fields)
        try renderIfBuffered(named: record.recordName, inZone: record.zoneRowID)
        // Read as missing under the lock (and not written since): a create, with nothing to remove first.
        let isNew = cache.record(named: record.recordName, inZone: record.zoneRowID).map { $0 == nil } ?? false
        writes.put(record, body: body, references: references, isNew: isNew)
        try flushIfFull()
        cache.wrote(record)
    }

    func deleteRecord(named name: String, inZone zoneRowID: Int64, modified: StoredRecord.Stamp, sequence: Int64) throws {
        try lockZone(zoneRowID)
        cache.forget(named: name, inZone: zoneRowID)
        try renderIfBuffered(named: name, inZone: zoneRowID)
        writes.delete(named: name, inZone: zoneRowID, modified: modified, sequence: sequence)
        try flushIfFull()
    }

    /// A record written twice before the buffer went out: the first write is queued as statements
    /// first (no round trip), so each rendering names every record once and keeps the writes' order.
    private func renderIfBuffered(named name: String, inZone zoneRowID: Int64) throws {
        guard writes.contains(named: name, inZone: zoneRowID) else { return }
        for statement in writes.take() { db.enqueue(statement) }
    }

    /// Sends the buffered writes once they reach ``maximumBufferedRecords``; the statements they
    /// become go out in one pipeline with whatever is queued. Errors surface here or with the next
    /// statement or the `COMMIT` and fail the transaction (or retry it), as any database error.
    private func flushIfFull() throws {
        if writes.count >= Self.maximumBufferedRecords || db.queuedCount >= Self.maximumQueuedStatements { try tracking { try db.flush() } }
    }

    /// Records buffered at most before they are sent: a rendering's parameters (the records' encoded
    /// fields among them) stay a few megabytes at most.
    static let maximumBufferedRecords = 1_000

    /// Queued statements sent at the latest in one pipeline: their replies (about 30 bytes each) stay
    /// well within the socket buffers while libpq, in blocking mode, is still sending.
    static let maximumQueuedStatements = 1_000
}
