import Foundation
import StratusServer
import StratusServerSQL
import StratusSQL
import StratusSQLite
import StratusWire
import Synchronization

/// The store primitives on one SQLite connection inside one transaction.
///
/// Confined to the connection's queue for the life of one `read` or `write`.
final class SQLiteStoreTransaction: RecordStoreWriter {
    let db: SQLiteConnection
    private let schemas: SchemaMemo
    /// Told about index builds this transaction schedules (`nil` on a reader, which saves no schema).
    private let indexBuilder: SQLiteIndexBuilder?
    /// Zones whose records changed in this transaction, with their databases; they move up their
    /// database's change log at commit.
    private var touchedZones: [Int64: DatabaseKey] = [:]
    /// The last record change sequence handed out per zone in this transaction; written back in ``finish()``.
    private var handedOut: [Int64: Int64] = [:]
    /// Schemas as this transaction sees them, and each written zone's, so indexing a record needs no extra read.
    private var seen = TransactionSchemas()
    /// Zone rows as this transaction read them (only ``finish()`` and ``deleteZone(_:)`` change a zone
    /// row, and both forget it), so a write's first change sequence needs no second read of its zone.
    private var zonesRead: [Int64: ZoneRow] = [:]
    /// Records known to have no `record_refs` rows as their source, so saving one without references
    /// skips the `DELETE` of its old edges (see ``putRecord(_:references:)``).
    private var withoutReferences: Set<RecordKey> = []

    struct RecordKey: Hashable {
        var zoneRowID: Int64
        var recordName: String
    }

    init(_ db: SQLiteConnection, schemas: SchemaMemo, indexBuilder: SQLiteIndexBuilder? = nil) {
        self.db = db
        self.schemas = schemas
        self.indexBuilder = indexBuilder
    }

    // MARK: Containers and schemas

    func containerExists(_ identifier: String) throws -> Bool {
        try db.fetchOne(Int.self, "SELECT 1 FROM containers WHERE identifier = ?", [identifier]) != nil
    }

    func containers() throws -> [String] {
        try db.fetchAll(String.self, "SELECT identifier FROM containers ORDER BY identifier")
    }

    func createContainer(_ identifier: String, createdAt: Int64) throws -> Bool {
        try db.execute("INSERT OR IGNORE INTO containers (identifier, created_at) VALUES (?, ?)", [identifier, createdAt])
        return db.changes == 1
    }

    func schema(container: String, environment: Environment) throws -> Schema {
        try seen.schema(TransactionSchemas.Key(container: container, environment: environment.rawValue)) { try self.loadSchema($0) }
    }

    private func loadSchema(_ key: TransactionSchemas.Key) throws -> Schema {
        guard
            let body = try db.fetchOne(
                Data.self, "SELECT body FROM schemas WHERE container = ? AND environment = ?", [key.container, key.environment])
        else { return Schema() }
        return try schemas.schema(decoding: body)
    }

    func saveSchema(_ schema: Schema, container: String, environment: Environment) throws {
        let key = TransactionSchemas.Key(container: container, environment: environment.rawValue)
        let old = try seen.schema(key) { try self.loadSchema($0) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        try db.execute(
            "INSERT OR REPLACE INTO schemas (container, environment, body) VALUES (?, ?, ?)",
            [container, environment.rawValue, try encoder.encode(schema)]
        )
        seen.wrote(schema, for: key)
        if old != schema {
            let builds = try SQLiteFieldIndex.schemaChanged(from: old, to: schema, container: container, environment: environment.rawValue, db)
            // NB: on the writer, before this transaction ends: the build's first chunk queues behind it.
            indexBuilder?.scheduled(builds)
        }
    }

    /// The fields the schema declares for a record's type, as this transaction sees the schema.
    private func declaredFields(of record: StoredRecord) throws -> [String: FieldSchema] {
        try seen.declaredFields(of: record, dialect: .sqlite, zone: { try self.zone(rowID: $0) }, load: { try self.loadSchema($0) })
    }

    // MARK: Zones

    private static let zoneColumns = SQLStoredRows.zoneColumns

    private static func zone(_ row: SQLiteRow) throws -> ZoneRow {
        try SQLStoredRows.zone(row, dialect: .sqlite)
    }

    private static func arguments(_ database: DatabaseKey) -> [any SQLiteValueConvertible] {
        [database.container, database.environment.rawValue, database.scope.rawValue, database.owner]
    }

    func zone(named name: String, in database: DatabaseKey) throws -> ZoneRow? {
        let row = try db.fetchOne(
            "SELECT \(Self.zoneColumns) FROM zones WHERE container = ? AND environment = ? AND scope = ? AND owner = ? AND zone_name = ? AND deleted = 0",
            SQLiteArguments(Self.arguments(database) + [name]), Self.zone
        )
        if let row { zonesRead[row.rowID] = row }
        return row.map(current)
    }

    func zone(rowID: Int64) throws -> ZoneRow? {
        try db.fetchOne("SELECT \(Self.zoneColumns) FROM zones WHERE id = ?", [rowID], Self.zone).map(current)
    }

    func zones(in database: DatabaseKey) throws -> [ZoneRow] {
        try db.fetchAll(
            "SELECT \(Self.zoneColumns) FROM zones WHERE container = ? AND environment = ? AND scope = ? AND owner = ? AND deleted = 0 ORDER BY zone_name",
            SQLiteArguments(Self.arguments(database)), Self.zone
        ).map(current)
    }

    /// The row with the change sequence this transaction has handed out but not yet stored.
    private func current(_ zone: ZoneRow) -> ZoneRow {
        guard let handed = handedOut[zone.rowID], handed > zone.changeSequence else { return zone }
        var zone = zone
        zone.changeSequence = handed
        return zone
    }

    /// The one writer numbers every zone change with the database's counter, so a sequence names
    /// one change and the feed needs neither the zone row ID nor a horizon.
    func zoneChanges(in database: DatabaseKey, after position: DatabaseFeedPosition, limit: Int) throws -> DatabaseZoneChanges {
        let zones = try db.fetchAll(
            "SELECT \(Self.zoneColumns) FROM zones WHERE container = ? AND environment = ? AND scope = ? AND owner = ? AND db_seq > ? ORDER BY db_seq LIMIT ?",
            SQLiteArguments(Self.arguments(database) + [position.sequence, limit]), Self.zone
        )
        return DatabaseZoneChanges(zones: zones)
    }

    func createZone(named name: String, in database: DatabaseKey, createdAt: Int64) throws -> ZoneRow {
        let sequence = try nextDatabaseSequence(database)
        try db.execute(
            "INSERT INTO zones (container, environment, scope, owner, zone_name, db_seq, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            SQLiteArguments(Self.arguments(database) + [name, sequence, createdAt])
        )
        return ZoneRow(
            rowID: db.lastInsertRowID, database: database, zoneName: name, changeSequence: 0, databaseSequence: sequence,
            createdAt: createdAt, isDeleted: false
        )
    }

    func deleteZone(_ zone: ZoneRow) throws {
        let sequence = try nextDatabaseSequence(zone.database)
        try db.execute("UPDATE zones SET deleted = 1, db_seq = ? WHERE id = ?", [sequence, zone.rowID])
        try db.execute("DELETE FROM records WHERE zone_id = ?", [zone.rowID])
        try db.execute("DELETE FROM record_refs WHERE zone_id = ?", [zone.rowID])
        try SQLiteFieldIndex.removeZone(zone.rowID, db)
        try SQLiteFieldIndexBuild.cancelZone(zone.rowID, db)
        touchedZones[zone.rowID] = nil
        zonesRead[zone.rowID] = nil
    }

    /// Moves `database`'s change log up by one and returns its new position: one statement.
    private func nextDatabaseSequence(_ database: DatabaseKey) throws -> Int64 {
        guard
            let sequence = try db.fetchOne(
                Int64.self,
                """
                INSERT INTO databases (container, environment, scope, owner, change_seq) VALUES (?, ?, ?, ?, 1)
                ON CONFLICT DO UPDATE SET change_seq = change_seq + 1 RETURNING change_seq
                """,
                SQLiteArguments(Self.arguments(database))
            )
        else {
            throw SQLiteStoreCorruption(message: "database \(database) has no change-log row after an upsert")
        }
        return sequence
    }

    func nextChangeSequence(inZone zoneRowID: Int64) throws -> Int64 {
        let last: Int64
        if let handed = handedOut[zoneRowID] {
            last = handed
        } else {
            // The zone's database comes with its sequence, for the change-log move at commit.
            guard
                let stored = try zonesRead[zoneRowID]
                    ?? db.fetchOne("SELECT \(Self.zoneColumns) FROM zones WHERE id = ? AND deleted = 0", [zoneRowID], Self.zone),
                !stored.isDeleted
            else {
                throw SQLiteStoreCorruption(message: "zone row \(zoneRowID) is missing or deleted")
            }
            last = stored.changeSequence
            touchedZones[zoneRowID] = stored.database
        }
        // NB: counted in memory and stored once at commit. A savepoint that rolls back a change
        // leaves a gap in the sequence, which change feeds tolerate; a number is never reused,
        // because only this one writer hands numbers out.
        handedOut[zoneRowID] = last + 1
        return last + 1
    }

    /// Stores each zone's last change sequence and moves every zone whose records changed up its
    /// database's change log; called once before commit.
    ///
    /// Done here rather than per change so a savepoint that rolls back a change cannot also roll
    /// back the zone's move while the transaction still counts it as moved. A zone deleted in this
    /// transaction only keeps its sequence (its deletion moved the change log already).
    func finish() throws {
        for (zoneRowID, sequence) in handedOut.sorted(by: { $0.key < $1.key }) {
            if let database = touchedZones[zoneRowID] {
                let position = try nextDatabaseSequence(database)
                try db.execute(
                    "UPDATE zones SET change_seq = max(change_seq, ?), db_seq = ? WHERE id = ?", [sequence, position, zoneRowID])
            } else {
                try db.execute("UPDATE zones SET change_seq = ? WHERE id = ? AND change_seq < ?", [sequence, zoneRowID, sequence])
            }
        }
        handedOut = [:]
        touchedZones = [:]
        zonesRead = [:]
    }

    // MARK: Records

    private static let recordColumns = SQLStoredRows.recordColumns

    static func record(_ row: SQLiteRow) throws -> StoredRecord {
        try SQLStoredRows.record(row, dialect: .sqlite)
    }

    func record(named name: String, inZone zoneRowID: Int64) throws -> StoredRecord? {
        let record = try db.fetchOne(
            "SELECT \(Self.recordColumns) FROM records WHERE zone_id = ? AND record_name = ?", [zoneRowID, name], Self.record)
        // A record's edges are exactly its reference fields' (every `putRecord` caller derives them so,
        // and a deletion removes them): none for a missing record, a tombstone, or fields without references.
        let key = RecordKey(zoneRowID: zoneRowID, recordName: name)
        if record.map({ $0.isDeleted || !Self.hasReferences($0.fields) }) ?? true {
            withoutReferences.insert(key)
        } else {
            withoutReferences.remove(key)
        }
        return record
    }

    private static func hasReferences(_ fields: [String: FieldValue]) -> Bool {
        fields.values.contains {
            switch $0 {
            case .reference, .referenceList: true
            default: false
            }
        }
    }

    func recordChanges(inZone zoneRowID: Int64, after sequence: Int64, limit: Int, recordTypes: Set<String>?) throws -> [StoredRecord] {
        guard let recordTypes else {
            return try db.fetchAll(
                "SELECT \(Self.recordColumns) FROM records WHERE zone_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                [zoneRowID, sequence, limit], Self.record
            )
        }
        guard !recordTypes.isEmpty else { return [] }
        let types = recordTypes.sorted()
        let placeholders = Array(repeating: "?", count: types.count).joined(separator: ", ")
        return try db.fetchAll(
            "SELECT \(Self.recordColumns) FROM records WHERE zone_id = ? AND seq > ? AND record_type IN (\(placeholders)) ORDER BY seq LIMIT ?",
            SQLiteArguments([zoneRowID, sequence] + types.map { $0 as any SQLiteValueConvertible } + [limit]), Self.record
        )
    }

    func references(toRecord name: String, inZone zoneRowID: Int64) throws -> [ReferenceEdge] {
        try db.fetchAll(
            "SELECT source_name, field_name, action FROM record_refs WHERE zone_id = ? AND target_name = ?", [zoneRowID, name]
        ) { row in
            ReferenceEdge(
                sourceZoneRowID: zoneRowID, sourceRecordName: try row[0], fieldName: try row[1], targetZoneRowID: zoneRowID,
                targetRecordName: name, action: ReferenceAction(rawValue: try row[2])
            )
        }
    }

    func putRecord(_ record: StoredRecord, references: [ReferenceEdge]) throws {
        let body = try SQLStoredRows.encodeFields(record.fields)
        try db.execute(
            """
            INSERT OR REPLACE INTO records (\(Self.recordColumns))
            VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                record.zoneRowID, record.recordName, record.recordType, record.changeTag, record.changeSequence, body,
                record.created.timestamp, record.created.userRecordName, record.created.deviceID,
                record.modified.timestamp, record.modified.userRecordName, record.modified.deviceID,
            ]
        )
        let key = RecordKey(zoneRowID: record.zoneRowID, recordName: record.recordName)
        if !withoutReferences.contains(key) {
            try removeReferences(from: record.recordName, inZone: record.zoneRowID)
        }
        if references.isEmpty {
            withoutReferences.insert(key)
        } else {
            withoutReferences.remove(key)
        }
        for edge in references {
            try db.execute(
                "INSERT OR REPLACE INTO record_refs (zone_id, target_name, source_name, field_name, action) VALUES (?, ?, ?, ?, ?)",
                [edge.sourceZoneRowID, edge.targetRecordName, edge.sourceRecordName, edge.fieldName, edge.action.rawValue]
            )
        }
        try SQLiteFieldIndex.index(record, declared: try declaredFields(of: record), db)
    }

    func deleteRecord(named name: String, inZone zoneRowID: Int64, modified: StoredRecord.Stamp, sequence: Int64) throws {
        try db.execute(
            """
            UPDATE records SET deleted = 1, fields = NULL, seq = ?, change_tag = ?, modified_at = ?, modified_by = ?, modified_device = ?
            WHERE zone_id = ? AND record_name = ?
            """,
            [sequence, ChangeTags.tag(for: sequence, at: modified.timestamp), modified.timestamp, modified.userRecordName, modified.deviceID, zoneRowID, name]
        )
        try removeReferences(from: name, inZone: zoneRowID)
        withoutReferences.insert(RecordKey(zoneRowID: zoneRowID, recordName: name))
        try SQLiteFieldIndex.remove(recordName: name, zoneRowID: zoneRowID, db)
    }

    private func removeReferences(from source: String, inZone zoneRowID: Int64) throws {
        try db.execute("DELETE FROM record_refs WHERE zone_id = ? AND source_name = ?", [zoneRowID, source])
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        let touchedBefore = touchedZones
        do {
            return try db.savepoint { _ in try body() }
        } catch {
            // NB: a rollback can bring back edges removed inside the savepoint, or undo a zone's
            // creation or deletion: forget what is known. A zone whose deletion it undid is live
            // again with the changes made before the savepoint, so it moves up the change log at
            // commit as if never deleted (zones first touched inside stay: a move too many is harmless).
            withoutReferences = []
            zonesRead = [:]
            touchedZones.merge(touchedBefore) { inside, _ in inside }
            throw error
        }
    }

    // MARK: Queries

    func query(_ plan: QueryPlan) throws -> QueryPage {
        try SQLiteQueryCompiler(plan: plan).run(db)
    }
}

/// A row that breaks the store's own invariants.
struct SQLiteStoreCorruption: Error, CustomStringConvertible {
    var message: String
    var description: String { "the SQLite record store is inconsistent: \(message)" }
}
