import Foundation
import StratusServer
import StratusSQLite
import StratusWire

/// Building one field's index rows over the records already stored: what a development query pays
/// once when it turns an index on (issue 20, "no stalls"; Documentation/0002 "Indexes on demand").
///
/// It runs one chunk of records at a time (``NameRange``, `SQLiteFieldIndexBuild`), each chunk inside the
/// writer, so it is kept to SQLite's own work where it can be: the value rows
/// of a scalar field (STRING, INT64, DOUBLE, TIMESTAMP, REFERENCE, LOCATION) and its NULL rows are
/// copied out of the records' JSON by one `INSERT … SELECT`; only what SQL cannot compute
/// (search tokens, BYTES and list values, a value of another type) is decoded in Swift, and then
/// only that field of each record (`json_extract`), never the whole record.
extension SQLiteFieldIndex {
    /// Record names `(after, through]` of a type's live records: one chunk of an index build; a `nil`
    /// end is open. Appended to a `WHERE` on `records` as `AND record_name > ? AND record_name <= ?`.
    struct NameRange: Equatable {
        var after: String?
        var through: String?

        static let all = NameRange(after: nil, through: nil)

        var sql: String { (after == nil ? "" : " AND record_name > ?") + (through == nil ? "" : " AND record_name <= ?") }
        var arguments: [(any SQLiteValueConvertible)?] {
            var values: [(any SQLiteValueConvertible)?] = []
            if let after { values.append(after) }
            if let through { values.append(through) }
            return values
        }
    }

    /// Builds one field's rows for the live records of a type in a zone whose names are in `range`.
    ///
    /// - Parameter type: The field's type in the schema (`nil` if unknown: everything in Swift).
    static func reindex(
        zone: Int64, recordType: String, field: String, type: FieldType?, spec: Spec, range: NameRange = .all, _ db: SQLiteConnection
    ) throws {
        let records = Records(zone: zone, recordType: recordType, range: range)
        guard let path = jsonPath(ofField: field) else {
            return try reindexDecodingRecords(records, field: field, spec: spec, db)
        }
        guard spec.values, let type, let columns = Self.valueColumns(of: type) else {
            return try reindexDecodingField(records, field: field, path: path, spec: spec, indexedInSQL: nil, db)
        }
        try insertScalarRows(records, field: field, path: path, type: type, columns: columns, spec: spec, db)
        try reindexDecodingField(records, field: field, path: path, spec: spec, indexedInSQL: type, db)
    }

    /// The live records one build step reads: a type in a zone, names in a range.
    private struct Records {
        var zone: Int64
        var recordType: String
        var range: NameRange

        /// `WHERE` on `records`, and its arguments before and after `extra` ones.
        var condition: String { "zone_id = ? AND record_type = ? AND deleted = 0" + range.sql }
        func arguments(_ before: [(any SQLiteValueConvertible)?] = [], _ after: [(any SQLiteValueConvertible)?] = []) -> SQLiteArguments {
            SQLiteArguments(before + [zone, recordType] + range.arguments + after)
        }
    }

    /// `$."name"` for a field name of ASCII letters, digits, `_` and `-`; `nil` for any other.
    static func jsonPath(ofField name: String) -> String? {
        let plain =
            !name.isEmpty
            && name.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
                    || byte == 0x2D
            }
        return plain ? "$.\"\(name)\"" : nil
    }

    /// The SQL for `v` and `v2` of a scalar value `j` (the field's `{"type", "value"}` JSON) as the
    /// Swift path binds them; `nil` for a type it cannot express.
    private static func valueColumns(of type: FieldType) -> (v: String, v2: String)? {
        switch type {
        case .string, .int64, .timestamp: ("json_extract(j, '$.value')", "NULL")
        case .double: ("CAST(json_extract(j, '$.value') AS REAL)", "NULL")
        case .reference: ("json_extract(j, '$.value.recordName')", "NULL")
        case .location: ("CAST(json_extract(j, '$.value.latitude') AS REAL)", "CAST(json_extract(j, '$.value.longitude') AS REAL)")
        default: nil
        }
    }

    /// Value rows for records whose value has the field's type and NULL rows (a sortable scalar) for
    /// records without it, in one statement; a value of another type is left to ``reindexDecodingField``.
    private static func insertScalarRows(
        _ records: Records, field: String, path: String, type: FieldType, columns: (v: String, v2: String), spec: Spec, _ db: SQLiteConnection
    ) throws {
        // NB: MATERIALIZED keeps SQLite from substituting `j` (re-parsing the record's JSON) per use.
        // A record without the field has `j` NULL, and so NULL in both columns: its NULL row.
        let rows = spec.nullRow ? "j IS NULL OR json_extract(j, '$.type') = ?" : "json_extract(j, '$.type') = ?"
        try db.execute(
            """
            WITH f AS MATERIALIZED (
                SELECT zone_id, record_name, record_type, json_extract(CAST(fields AS TEXT), ?) AS j
                FROM records WHERE \(records.condition)
            )
            INSERT INTO field_index (zone_id, record_name, field_name, ordinal, record_type, v, v2)
            SELECT zone_id, record_name, ?, 0, record_type, \(columns.v), \(columns.v2) FROM f WHERE \(rows)
            """,
            records.arguments([path], [field, type.rawValue])
        )
    }

    /// The Swift path over the field's own JSON. With `indexedInSQL`, the values of that type already
    /// have their value and NULL rows: only their tokens are left, and values of another type.
    private static func reindexDecodingField(
        _ scope: Records, field: String, path: String, spec: Spec, indexedInSQL: FieldType?, _ db: SQLiteConnection
    ) throws {
        var select = "SELECT record_name, json_extract(CAST(fields AS TEXT), ?) AS j FROM records WHERE \(scope.condition)"
        var arguments = scope.arguments([path])
        if let indexedInSQL {
            select = "SELECT * FROM (\(select)) WHERE j IS NOT NULL"
            if !spec.tokens {
                select += " AND json_extract(j, '$.type') IS NOT ?"
                arguments = scope.arguments([path], [indexedInSQL.rawValue])
            }
        }
        var tokensOnly = spec
        tokensOnly.values = false
        tokensOnly.nullRow = false
        let records = try db.fetchAll(select, arguments) { row in (name: try row[0] as String, value: try row[1] as Data?) }
        for record in records {
            let value = try record.value.map { try WireCoding.decode(FieldValue.self, from: $0) }
            let target = Target(zoneRowID: scope.zone, recordName: record.name, recordType: scope.recordType)
            let done = indexedInSQL != nil && value?.type == indexedInSQL
            guard !done || spec.tokens else { continue }
            try index(target, field: field, spec: done ? tokensOnly : spec, value: value, db)
        }
    }

    private static func reindexDecodingRecords(_ scope: Records, field: String, spec: Spec, _ db: SQLiteConnection) throws {
        let records = try db.fetchAll("SELECT record_name, fields FROM records WHERE \(scope.condition)", scope.arguments()) { row in
            (name: try row[0] as String, fields: try row[1] as Data?)
        }
        for record in records {
            let fields = try record.fields.map { try WireCoding.decode([String: FieldValue].self, from: $0) } ?? [:]
            let target = Target(zoneRowID: scope.zone, recordName: record.name, recordType: scope.recordType)
            try index(target, field: field, spec: spec, value: fields[field], db)
        }
    }
}
