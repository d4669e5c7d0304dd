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
        let wanted = Array(Set(names.filter { !cache.contains(named: $0, inZone: zoneRowID) })).sorted()
        let knowsCounter = lockedZones.contains(zoneRowID) && cache.counters[zoneRowID] != nil
        guard !wanted.isEmpty || !knowsCounter else { return }
        // The lock first (FOR UPDATE, again if already held: harmless), then the reads, in one pipeline.
        let results = try tracking {
            try db.pipeline([
                PostgresStatement("SELECT change_seq FROM zones WHERE id = $1 AND NOT deleted FOR UPDATE", [zoneRowID]),
                PostgresStatement(
                    "SELECT \(Self.recordColumns) FROM records WHERE zone_id = $1 AND record_name = ANY($2::text[])",
                    [zoneRowID, PostgresArray(wanted)]
                ),
            ])
        }
        // A zone deleted meanwhile: nothing is cached, and the writes fail as without the hint.
        guard let counterRow = results[0].first else { return }
        lockedZones.insert(zoneRowID)
        if !knowsCounter { cache.learnCounter(try counterRow[0], ofZone: zoneRowID) }
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

    /// Queues the record's row, its references and its index rows: they go out with the next
    /// statement, so a whole batch's writes share a round trip (a flush every few hundred statements).
    func putRecord(_ record: StoredRecord, references: [ReferenceEdge]) throws {
        try lockZone(record.zoneRowID)
        let body = try SQLStoredRows.encodeFields(record.fields)
        var batch = [
            PostgresStatement(
                """
                INSERT INTO records (\(Self.recordColumns))
                VALUES ($1, $2, $3, $4, $5, false, $6, $7, $8, $9, $10, $11, $12)
                ON CONFLICT (zone_id, record_name) DO UPDATE SET
                    record_type = excluded.record_type, change_tag = excluded.change_tag, seq = excluded.seq, deleted = false,
                    fields = excluded.fields, created_at = excluded.created_at, created_by = excluded.created_by,
                    created_device = excluded.created_device, modified_at = excluded.modified_at, modified_by = excluded.modified_by,
                    modified_device = excluded.modified_device
                """,
                [
                    record.zoneRowID, record.recordName, record.recordType, record.changeTag, record.changeSequence, body,
                    record.created.timestamp, record.created.userRecordName, record.created.deviceID,
                    record.modified.timestamp, record.modified.userRecordName, record.modified.deviceID,
                ]
            ),
            PostgresStatement("DELETE FROM record_refs WHERE zone_id = $1 AND source_name = $2", [record.zoneRowID, record.recordName]),
        ]
        for edge in references {
            batch.append(
                PostgresStatement(
                    """
                    INSERT INTO record_refs (zone_id, target_name, source_name, field_name, action) VALUES ($1, $2, $3, $4, $5)
                    ON CONFLICT (zone_id, target_name, source_name, field_name) DO UPDATE SET action = excluded.action
                    """,
                    [edge.sourceZoneRowID, edge.targetRecordName, edge.sourceRecordName, edge.fieldName, edge.action.rawValue]
                )
            )
        }
        batch += PostgresFieldIndex.replacing(record)
        try enqueueWrites(batch)
        cache.wrote(record)
    }

    func deleteRecord(named name: String, inZone zoneRowID: Int64, modified: StoredRecord.Stamp, sequence: Int64) throws {
        try lockZone(zoneRowID)
        cache.forget(named: name, inZone: zoneRowID)
        try enqueueWrites([
            PostgresStatement(
                """
                UPDATE records SET deleted = true, fields = NULL, seq = $1, change_tag = $2, modified_at = $3, modified_by = $4,
                    modified_device = $5
                WHERE zone_id = $6 AND record_name = $7
                """,
                [
                    sequence, ChangeTags.tag(for: sequence, at: modified.timestamp), modified.timestamp, modified.userRecordName, modified.deviceID, zoneRowID,
                    name,
                ]
            ),
            PostgresStatement("DELETE FROM record_refs WHERE zone_id = $1 AND source_name = $2", [zoneRowID, name]),
            PostgresFieldIndex.removal(recordName: name, zoneRowID: zoneRowID),
        ])
    }

    /// Writes whose results nobody reads, queued (`PostgresConnection.enqueue`); errors surface
    /// with the next statement or the `COMMIT` and fail the transaction (or retry it), as any database error.
    private func enqueueWrites(_ statements: [PostgresStatement]) throws {
        for statement in statements { db.enqueue(statement) }
        if db.queuedCount >= Self.maximumQueuedStatements { try tracking { try db.flush() } }
    }

    /// Queued statements sent at the latest in one pipeline: their replies (about 30 bytes each) stay
    /// well within the socket buffers while libpq, in blocking mode, is still sending. A batch of 200
    /// records without references queues about 800.
    static let maximumQueuedStatements = 1_000
}
