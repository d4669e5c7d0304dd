import Foundation
import StratusServer
import StratusSQLite
import StratusWire

extension SQLiteFieldIndex {
    /// Brings the index in line with a schema change of one container environment.
    ///
    /// - A new field declared as development declares it needs nothing but NULL rows
    ///   for the records that lack it (records that have it were indexed when saved).
    /// - A field whose index was turned off (or that was removed) has its rows dropped.
    /// - A field whose index flags changed otherwise gets a build (`field_index_builds`): its rows are
    ///   rebuilt from every live record of its type, a chunk of records per write transaction, after
    ///   this one commits (`SQLiteFieldIndexBuild`). Writes meanwhile index the field as the new schema
    ///   says, and queries of the type wait for the build (`SQLiteIndexBuilder`).
    ///
    /// - Returns: The record types that got a build.
    @discardableResult
    static func schemaChanged(
        from old: Schema, to new: Schema, container: String, environment: String, _ db: SQLiteConnection
    ) throws
        -> Set<String>
    {
        var zones: [Int64]?
        var scheduled: Set<String> = []
        for typeName in Set(old.recordTypes.keys).union(new.recordTypes.keys).sorted() {
            let oldFields = old.recordTypes[typeName]?.fields ?? [:]
            let newFields = new.recordTypes[typeName]?.fields ?? [:]
            for name in Set(oldFields.keys).union(newFields.keys).sorted() {
                let before = oldFields[name].map(Spec.init)
                let after = newFields[name].map(Spec.init)
                guard before != after else { continue }
                let zoneIDs =
                    try zones
                    ?? db.fetchAll(
                        Int64.self, "SELECT id FROM zones WHERE container = ? AND environment = ? AND deleted = 0", [container, environment]
                    )
                zones = zoneIDs
                if before == nil, let field = newFields[name], let after, after == Spec(.justInTime(field.type)) {
                    if after.nullRow {
                        for zone in zoneIDs { try insertNullRows(zone: zone, recordType: typeName, field: name, db) }
                    }
                    continue
                }
                for zone in zoneIDs {
                    guard let after, !after.isEmpty else {
                        try db.execute("DELETE FROM field_index WHERE zone_id = ? AND record_type = ? AND field_name = ?", binding: zone, typeName, name)
                        try db.execute("DELETE FROM field_tokens WHERE zone_id = ? AND record_type = ? AND field_name = ?", binding: zone, typeName, name)
                        try SQLiteFieldIndexBuild.cancel(zone: zone, recordType: typeName, field: name, db)
                        continue
                    }
                    // NB: the old rows stay until the build's chunk replaces them; no query reads them meanwhile.
                    try SQLiteFieldIndexBuild.schedule(zone: zone, recordType: typeName, field: name, db)
                    scheduled.insert(typeName)
                }
            }
        }
        return scheduled
    }

    /// Rebuilds the whole index from the records table (the migration that creates the index).
    static func rebuildAll(_ db: SQLiteConnection) throws {
        try db.execute("DELETE FROM field_index")
        try db.execute("DELETE FROM field_tokens")
        var schemas: [String: Schema] = [:]
        let zones = try db.fetchAll("SELECT id, container, environment FROM zones WHERE deleted = 0 ORDER BY id") { row in
            (id: try row[0] as Int64, container: try row[1] as String, environment: try row[2] as String)
        }
        for zone in zones {
            let key = zone.container + "\u{0}" + zone.environment
            let schema: Schema
            if let cached = schemas[key] {
                schema = cached
            } else {
                let body = try db.fetchOne(
                    Data.self, "SELECT body FROM schemas WHERE container = ? AND environment = ?", [zone.container, zone.environment]
                )
                schema = try body.map { try JSONDecoder().decode(Schema.self, from: $0) } ?? Schema()
                schemas[key] = schema
            }
            let records = try db.fetchAll(
                "SELECT record_name, record_type, fields FROM records WHERE zone_id = ? AND deleted = 0", [zone.id]
            ) { row in
                (name: try row[0] as String, type: try row[1] as String, fields: try row[2] as Data?)
            }
            for record in records {
                let fields = try record.fields.map { try WireCoding.decode([String: FieldValue].self, from: $0) } ?? [:]
                let stored = StoredRecord(
                    zoneRowID: zone.id, recordName: record.name, recordType: record.type, changeTag: "", fields: fields,
                    created: StoredRecord.Stamp(timestamp: 0, userRecordName: "", deviceID: ""),
                    modified: StoredRecord.Stamp(timestamp: 0, userRecordName: "", deviceID: ""), changeSequence: 0
                )
                try index(stored, declared: schema.recordTypes[record.type]?.fields ?? [:], db)
            }
        }
    }

    private static func insertNullRows(zone: Int64, recordType: String, field: String, _ db: SQLiteConnection) throws {
        try db.execute(
            """
            INSERT OR IGNORE INTO field_index (zone_id, record_name, field_name, ordinal, record_type, v, v2)
            SELECT zone_id, record_name, ?, 0, record_type, NULL, NULL FROM records WHERE zone_id = ? AND record_type = ? AND deleted = 0
            """,
            binding: field, zone, recordType
        )
    }
}
