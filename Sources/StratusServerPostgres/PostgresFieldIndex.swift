import StratusPostgres
import StratusServer
import StratusWire

/// The query index: one `field_index` row per scalar field value and per list member of a live record.
///
/// A value goes to the column of its kind — `vi` (INT64, TIMESTAMP), `vr` (DOUBLE, a
/// location's latitude, with its longitude in `vr2`) or `vt` (STRING, a reference's record
/// name; `COLLATE "C"`, so ranges order by code point like SQLite) — each with a partial index
/// `(zone_id, record_type, field_name, v…, record_name)`. Every record is indexed in full
/// (bytes and assets excepted), whatever the schema's flags: queries use the index only to
/// narrow candidates and check each candidate exactly, so a missing row would lose a record.
enum PostgresFieldIndex {
    static func register(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v2-field-index") { db in
            try db.execute(
                """
                CREATE TABLE field_index (
                    zone_id BIGINT NOT NULL,
                    record_name TEXT NOT NULL,
                    field_name TEXT NOT NULL,
                    ordinal INTEGER NOT NULL,
                    record_type TEXT NOT NULL,
                    vi BIGINT,
                    vr DOUBLE PRECISION,
                    vt TEXT COLLATE "C",
                    PRIMARY KEY (zone_id, record_name, field_name, ordinal)
                );
                CREATE INDEX field_index_vi ON field_index (zone_id, record_type, field_name, vi, record_name) WHERE vi IS NOT NULL;
                CREATE INDEX field_index_vr ON field_index (zone_id, record_type, field_name, vr, record_name) WHERE vr IS NOT NULL;
                CREATE INDEX field_index_vt ON field_index (zone_id, record_type, field_name, vt, record_name) WHERE vt IS NOT NULL;
                """)
            let records = try db.query(
                "SELECT \(PostgresStoreTransaction.recordColumns) FROM records WHERE NOT deleted"
            ).map(PostgresStoreTransaction.record)
            for record in records {
                if let insert = insertion(record) { try db.execute(insert.sql, insert.parameters) }
            }
        }
    }

    /// Adds `vr2`, a location's longitude, so `NEAR` boxes and distance sorts run in SQL; existing
    /// location values are indexed again to fill it.
    static func registerLongitude(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v9-field-index-longitude") { db in
            try db.execute("ALTER TABLE field_index ADD COLUMN vr2 DOUBLE PRECISION")
            let records = try db.query(
                """
                SELECT \(PostgresStoreTransaction.recordColumns) FROM records r WHERE NOT deleted AND EXISTS (
                    SELECT 1 FROM field_index f WHERE f.zone_id = r.zone_id AND f.record_name = r.record_name AND f.vr IS NOT NULL)
                """
            ).map(PostgresStoreTransaction.record)
            for record in records {
                for statement in replacing(record) { try db.execute(statement.sql, statement.parameters) }
            }
        }
    }

    /// Shortens strings already indexed past ``PostgresIndexedText/maximumBytes`` to the prefix queries
    /// now test (a longer one could not be written at all, so only those in between exist).
    static func registerTextPrefixes(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v12-field-index-text-prefixes") { db in
            let rows = try db.query(
                "SELECT zone_id, record_name, field_name, ordinal, vt FROM field_index WHERE octet_length(vt) > $1",
                [PostgresIndexedText.maximumBytes])
            for row in rows {
                let zone: Int64 = try row[0], record: String = try row[1], field: String = try row[2], ordinal: Int64 = try row[3]
                let text: String = try row[4]
                try db.execute(
                    "UPDATE field_index SET vt = $1 WHERE zone_id = $2 AND record_name = $3 AND field_name = $4 AND ordinal = $5",
                    [PostgresIndexedText.prefix(text), zone, record, field, ordinal])
            }
        }
    }

    /// The statements replacing a record's index rows.
    static func replacing(_ record: StoredRecord) -> [PostgresStatement] {
        [removal(recordName: record.recordName, zoneRowID: record.zoneRowID)] + (insertion(record).map { [$0] } ?? [])
    }

    /// The statement removing a record's index rows.
    static func removal(recordName: String, zoneRowID: Int64) -> PostgresStatement {
        PostgresStatement("DELETE FROM field_index WHERE zone_id = $1 AND record_name = $2", [zoneRowID, recordName])
    }

    static func removeZone(_ zoneRowID: Int64, _ db: PostgresConnection) throws {
        try db.execute("DELETE FROM field_index WHERE zone_id = $1", [zoneRowID])
    }

    /// The statement removing the index rows of several records (parallel arrays of zone row IDs and names).
    static func removal(zoneRowIDs: PostgresArray, recordNames: PostgresArray) -> PostgresStatement {
        PostgresStatement(
            "DELETE FROM field_index USING unnest($1::bigint[], $2::text[]) AS u(z, n) WHERE field_index.zone_id = u.z AND field_index.record_name = u.n",
            [zoneRowIDs, recordNames], prepared: true
        )
    }

    /// One statement for all of a record's rows (`unnest` of parallel arrays); `nil` when it has none.
    private static func insertion(_ record: StoredRecord) -> PostgresStatement? {
        var rows = Rows()
        rows.add(record)
        return rows.insertion
    }

    /// The index rows of any number of records, inserted by one statement (`unnest` of parallel arrays).
    struct Rows {
        private var zones: [Int64] = []
        private var records: [String] = []
        private var types: [String] = []
        private var names: [String] = []
        private var ordinals: [Int32] = []
        private var integers: [Int64?] = []
        private var reals: [Double?] = []
        private var longitudes: [Double?] = []
        private var texts: [String?] = []

        /// Adds a record's rows: one per scalar field value and per list member (bytes and assets have none).
        mutating func add(_ record: StoredRecord) {
            for (name, value) in record.fields {
                for (ordinal, member) in PostgresQueryEvaluator.members(value).enumerated() {
                    let column = column(of: member)
                    guard column.integer != nil || column.real != nil || column.text != nil else { continue }
                    zones.append(record.zoneRowID)
                    records.append(record.recordName)
                    types.append(record.recordType)
                    names.append(name)
                    ordinals.append(Int32(clamping: ordinal))
                    integers.append(column.integer)
                    reals.append(column.real)
                    longitudes.append(column.longitude)
                    texts.append(column.text)
                }
            }
        }

        /// The statement inserting every row added; `nil` when there are none.
        var insertion: PostgresStatement? {
            guard !names.isEmpty else { return nil }
            return PostgresStatement(
                """
                INSERT INTO field_index (zone_id, record_name, record_type, field_name, ordinal, vi, vr, vr2, vt)
                SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::int[], $6::bigint[], $7::float8[],
                    $8::float8[], $9::text[])
                """,
                [
                    PostgresArray(zones), PostgresArray(records), PostgresArray(types), PostgresArray(names), PostgresArray(ordinals),
                    PostgresArray(integers), PostgresArray(reals), PostgresArray(longitudes), PostgresArray(texts),
                ],
                prepared: true
            )
        }
    }

    /// The column a scalar is stored in (none for bytes and assets); a location fills two.
    static func column(of value: FieldValue) -> (integer: Int64?, real: Double?, longitude: Double?, text: String?) {
        switch value {
        case .string(let text): (nil, nil, nil, PostgresIndexedText.prefix(text))
        case .reference(let reference): (nil, nil, nil, reference.recordName)
        case .int64(let integer): (integer, nil, nil, nil)
        case .timestamp(let timestamp): (timestamp.millisecondsSince1970, nil, nil, nil)
        case .double(let double): (nil, double, nil, nil)
        case .location(let location): (nil, location.latitude, location.longitude, nil)
        default: (nil, nil, nil, nil)
        }
    }
}
