import Foundation
import StratusPostgres
import StratusServer
import StratusServerSQL
import StratusWire

/// A write transaction's record writes not yet sent, turned into one multi-row statement per table.
///
/// `putRecord` and `deleteRecord` add here instead of queuing four or more statements per record;
/// ``take()`` renders the lot as at most seven statements (`unnest` of parallel arrays): the
/// records upsert, the tombstones, the old references and index rows removed, the new ones
/// inserted, the usage counters. The transaction hands them to its connection right before anything is sent
/// (`PostgresConnection.pendingStatements`), so every read, savepoint flush and the `COMMIT`
/// sees them. Each record appears at most once (a second write of the same record first renders
/// what is buffered), so the statements' order within one rendering does not matter. A record the
/// transaction read as missing under its zone's lock (a create) has no references or index rows to
/// remove: the removals name only the others, and are left out when there are none. Usage deltas
/// (`addUsage`) are buffered too and summed per zone into one upsert, so the writes of a group
/// (``PostgresWriteCoalescer``) move each zone's counters once.
struct PostgresRecordWrites {
    private struct Tombstone {
        var zoneRowID: Int64
        var name: String
        var sequence: Int64
        var modified: StoredRecord.Stamp
    }

    private enum Entry {
        /// A record's row (its `fields` encoded as `body`) and outgoing references; `isNew`: nothing of it to remove.
        case put(StoredRecord, body: Data, edges: [ReferenceEdge], isNew: Bool)
        case delete(Tombstone)
        /// A change of a zone's usage counters.
        case usage(zoneRowID: Int64, delta: StorageUsage)

        /// The record written; `nil` for a usage change.
        var key: PostgresWriteCache.RecordKey? {
            switch self {
            case .put(let record, _, _, _): PostgresWriteCache.RecordKey(zoneRowID: record.zoneRowID, name: record.recordName)
            case .delete(let tombstone): PostgresWriteCache.RecordKey(zoneRowID: tombstone.zoneRowID, name: tombstone.name)
            case .usage: nil
            }
        }
    }

    /// A savepoint's view of the buffer: what to return to if it rolls back.
    struct Mark {
        fileprivate var count: Int
        fileprivate var rendered: Int
    }

    /// The writes, in order: those before `rendered` were taken (sent, or queued to be), the rest are buffered.
    /// Taken ones are kept only while a savepoint is open (``mark()``), since its rollback buffers them again;
    /// a savepoint thus costs a mark, not a copy of the buffer (which made a batch's writes quadratic).
    private var log: [Entry] = []
    private var rendered = 0
    /// The buffered records: each at most once.
    private var buffered: Set<PostgresWriteCache.RecordKey> = []
    private var openMarks = 0

    /// How many records are buffered.
    var count: Int { buffered.count }

    /// Whether the record is buffered already (then what is buffered must be rendered first).
    func contains(named name: String, inZone zoneRowID: Int64) -> Bool {
        buffered.contains(PostgresWriteCache.RecordKey(zoneRowID: zoneRowID, name: name))
    }

    /// Buffers a record's row (its `fields` encoded as `body`) and its outgoing references.
    ///
    /// - Parameter isNew: The record has no row at all (read so under the zone's lock): nothing of it to remove.
    mutating func put(_ record: StoredRecord, body: Data, references recordReferences: [ReferenceEdge], isNew: Bool) {
        var seen: [ReferenceKey: Int] = [:]
        var own: [ReferenceEdge] = []
        // One row per (target, field): a later edge replaces an earlier one, as `ON CONFLICT … DO UPDATE` did one by one.
        for edge in recordReferences {
            let key = ReferenceKey(target: edge.targetRecordName, field: edge.fieldName)
            if let index = seen[key] { own[index] = edge } else { seen[key] = own.count; own.append(edge) }
        }
        append(.put(record, body: body, edges: own, isNew: isNew))
    }

    /// Buffers a record's tombstone: the row marked deleted, its references and index rows removed.
    mutating func delete(named name: String, inZone zoneRowID: Int64, modified: StoredRecord.Stamp, sequence: Int64) {
        append(.delete(Tombstone(zoneRowID: zoneRowID, name: name, sequence: sequence, modified: modified)))
    }

    /// Buffers a change of a zone's usage counters (summed with the zone's others when rendered).
    mutating func addUsage(_ delta: StorageUsage, zoneRowID: Int64) {
        append(.usage(zoneRowID: zoneRowID, delta: delta))
    }

    private mutating func append(_ entry: Entry) {
        if let key = entry.key { buffered.insert(key) }
        log.append(entry)
    }

    /// Opens a savepoint on the buffer; it ends with ``release(_:)`` or ``rollBack(to:)`` (nested ones first).
    mutating func mark() -> Mark {
        openMarks += 1
        return Mark(count: log.count, rendered: rendered)
    }

    /// The savepoint succeeded: what it buffered stays.
    mutating func release(_ mark: Mark) {
        openMarks -= 1
        compact()
    }

    /// The savepoint rolled back: what it buffered is gone, and what was buffered when it opened is
    /// buffered again (whatever of it went out inside the savepoint was undone or dropped with it).
    mutating func rollBack(to mark: Mark) {
        openMarks -= 1
        log.removeSubrange(mark.count...)
        rendered = mark.rendered
        buffered = Set(log[rendered...].compactMap(\.key))
        compact()
    }

    /// Drops the taken writes once no savepoint can buffer them again.
    private mutating func compact() {
        guard openMarks == 0, rendered > 0 else { return }
        log.removeSubrange(..<rendered)
        rendered = 0
    }

    private struct ReferenceKey: Hashable {
        var target: String
        var field: String
    }

    /// The buffered writes as statements (none when nothing is buffered); the buffer is emptied.
    mutating func take() -> [PostgresStatement] {
        guard rendered < log.count else { return [] }
        var rendering = Rendering()
        for entry in log[rendered...] { rendering.add(entry) }
        rendered = log.count
        buffered = []
        compact()
        return rendering.statements
    }

    /// The statements of a set of writes, each record at most once.
    private struct Rendering {
        /// The records that may have references and index rows already (all but the new ones).
        var replaced: [PostgresWriteCache.RecordKey] = []
        var records: [(record: StoredRecord, body: Data)] = []
        var edges: [ReferenceEdge] = []
        var tombstones: [Tombstone] = []
        /// Usage deltas summed per zone, in the order the zones first appeared.
        var usage: [(zoneRowID: Int64, delta: StorageUsage)] = []

        mutating func add(_ entry: Entry) {
            switch entry {
            case .put(let record, let body, let own, let isNew):
                if !isNew, let key = entry.key { replaced.append(key) }
                records.append((record, body))
                edges += own
            case .delete(let tombstone):
                if let key = entry.key { replaced.append(key) }
                tombstones.append(tombstone)
            case .usage(let zoneRowID, let delta):
                if let index = usage.firstIndex(where: { $0.zoneRowID == zoneRowID }) {
                    usage[index].delta = usage[index].delta + delta
                } else {
                    usage.append((zoneRowID, delta))
                }
            }
        }

        var statements: [PostgresStatement] {
            var statements: [PostgresStatement] = []
            if !records.isEmpty { statements.append(upsert()) }
            if !tombstones.isEmpty { statements.append(tombstoning()) }
            if !replaced.isEmpty {
                let zones = PostgresArray(replaced.map(\.zoneRowID))
                let names = PostgresArray(replaced.map(\.name))
                statements.append(
                    PostgresStatement(
                        """
                        DELETE FROM record_refs USING unnest($1::bigint[], $2::text[]) AS u(z, n)
                        WHERE record_refs.zone_id = u.z AND record_refs.source_name = u.n
                        """,
                        [zones, names], prepared: true
                    )
                )
                statements.append(PostgresFieldIndex.removal(zoneRowIDs: zones, recordNames: names))
            }
            if !edges.isEmpty { statements.append(referencing()) }
            var index = PostgresFieldIndex.Rows()
            for (record, _) in records { index.add(record) }
            if let insertion = index.insertion { statements.append(insertion) }
            if !usage.isEmpty { statements.append(usageUpsert()) }
            return statements
        }

        /// One row per zone: `ON CONFLICT DO UPDATE` may touch a row once per statement.
        private func usageUpsert() -> PostgresStatement {
            PostgresStatement(
                """
                INSERT INTO zone_usage (zone_id, record_bytes, asset_bytes)
                SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[])
                ON CONFLICT (zone_id) DO UPDATE SET record_bytes = zone_usage.record_bytes + excluded.record_bytes,
                    asset_bytes = zone_usage.asset_bytes + excluded.asset_bytes
                """,
                [
                    PostgresArray(usage.map(\.zoneRowID)), PostgresArray(usage.map(\.delta.recordBytes)),
                    PostgresArray(usage.map(\.delta.assetBytes)),
                ],
                prepared: true
            )
        }

        private func upsert() -> PostgresStatement {
            PostgresStatement(
                """
                INSERT INTO records (\(SQLStoredRows.recordColumns))
                SELECT z, n, t, tag, s, false, f, ca, cb, cd, ma, mb, md
                FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bytea[], $7::bigint[], $8::text[],
                    $9::text[], $10::bigint[], $11::text[], $12::text[]) AS u(z, n, t, tag, s, f, ca, cb, cd, ma, mb, md)
                ON CONFLICT (zone_id, record_name) DO UPDATE SET
                    record_type = excluded.record_type, change_tag = excluded.change_tag, seq = excluded.seq, deleted = false,
                    fields = excluded.fields, created_at = excluded.created_at, created_by = excluded.created_by,
                    created_device = excluded.created_device, modified_at = excluded.modified_at, modified_by = excluded.modified_by,
                    modified_device = excluded.modified_device
                """,
                [
                    PostgresArray(records.map(\.record.zoneRowID)), PostgresArray(records.map(\.record.recordName)),
                    PostgresArray(records.map(\.record.recordType)), PostgresArray(records.map(\.record.changeTag)),
                    PostgresArray(records.map(\.record.changeSequence)), PostgresArray(records.map(\.body)),
                    PostgresArray(records.map(\.record.created.timestamp)), PostgresArray(records.map(\.record.created.userRecordName)),
                    PostgresArray(records.map(\.record.created.deviceID)), PostgresArray(records.map(\.record.modified.timestamp)),
                    PostgresArray(records.map(\.record.modified.userRecordName)), PostgresArray(records.map(\.record.modified.deviceID)),
                ],
                prepared: true
            )
        }

        private func tombstoning() -> PostgresStatement {
            PostgresStatement(
                """
                UPDATE records SET deleted = true, fields = NULL, seq = u.s, change_tag = u.tag, modified_at = u.ma, modified_by = u.mb,
                    modified_device = u.md
                FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::text[], $7::text[]) AS u(z, n, s, tag, ma, mb, md)
                WHERE records.zone_id = u.z AND records.record_name = u.n
                """,
                [
                    PostgresArray(tombstones.map(\.zoneRowID)), PostgresArray(tombstones.map(\.name)), PostgresArray(tombstones.map(\.sequence)),
                    PostgresArray(tombstones.map { ChangeTags.tag(for: $0.sequence, at: $0.modified.timestamp) }),
                    PostgresArray(tombstones.map(\.modified.timestamp)), PostgresArray(tombstones.map(\.modified.userRecordName)),
                    PostgresArray(tombstones.map(\.modified.deviceID)),
                ],
                prepared: true
            )
        }

        private func referencing() -> PostgresStatement {
            PostgresStatement(
                """
                INSERT INTO record_refs (zone_id, target_name, source_name, field_name, action)
                SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[])
                ON CONFLICT (zone_id, target_name, source_name, field_name) DO UPDATE SET action = excluded.action
                """,
                [
                    PostgresArray(edges.map(\.sourceZoneRowID)), PostgresArray(edges.map(\.targetRecordName)),
                    PostgresArray(edges.map(\.sourceRecordName)), PostgresArray(edges.map(\.fieldName)),
                    PostgresArray(edges.map(\.action.rawValue)),
                ],
                prepared: true
            )
        }
    }
}
