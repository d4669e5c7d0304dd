import Foundation
import StratusServer
import StratusSQLite
import StratusWire

/// Keeps the query index (`field_index`, `field_tokens`) in step with the records table.
///
/// Only fields with an index in the schema are indexed: value rows for
/// queryable or sortable fields (one per scalar, one per list member, with its
/// position as `ordinal`), a NULL row for a sortable scalar the record lacks,
/// and token rows for searchable strings. A field the schema does not know yet
/// (development grows the schema after the records of a batch are written) is
/// indexed as ``FieldSchema/justInTime(_:)`` will declare it. Every statement is
/// cached and binds its values without allocating.
enum SQLiteFieldIndex {
    /// What one field puts in the index.
    struct Spec: Hashable {
        /// Value rows (the field is queryable or sortable).
        var values: Bool
        /// A NULL row when the record lacks the field (a sortable scalar).
        var nullRow: Bool
        /// Token rows (a searchable STRING or STRING_LIST).
        var tokens: Bool

        init(_ field: FieldSchema) {
            let type = field.type
            let indexable = type != .asset && type != .assetList && type != .unknownList
            values = indexable && (field.queryable || field.sortable)
            nullRow = values && field.sortable && !type.isList
            tokens = field.searchable && (type == .string || type == .stringList)
        }

        var isEmpty: Bool { !values && !tokens }
    }

    /// Where one record's rows go.
    struct Target {
        var zoneRowID: Int64
        var recordName: String
        var recordType: String
    }

    private static let insertValue =
        "INSERT INTO field_index (zone_id, record_name, field_name, ordinal, record_type, v, v2) VALUES (?, ?, ?, ?, ?, ?, ?)"
    private static let insertToken =
        "INSERT OR IGNORE INTO field_tokens (zone_id, record_name, field_name, token, record_type) VALUES (?, ?, ?, ?, ?)"

    /// Replaces the index rows of a live record.
    ///
    /// - Parameter declared: The record type's fields in the schema as the transaction sees it.
    static func index(_ record: StoredRecord, declared: [String: FieldSchema], _ db: SQLiteConnection) throws {
        let indexed = declared.compactMap { name, field -> (String, Spec)? in
            let spec = Spec(field)
            return spec.isEmpty ? nil : (name, spec)
        }
        let undeclared = record.fields.compactMap { name, value -> (String, Spec, FieldValue)? in
            guard declared[name] == nil else { return nil }
            let spec = Spec(.justInTime(value.type))
            return spec.isEmpty ? nil : (name, spec, value)
        }
        // NB: a record type without indexed fields has no index rows to replace (rows of a field
        // are dropped when its index is turned off), so most writes skip the index entirely.
        guard !indexed.isEmpty || !undeclared.isEmpty else { return }
        try remove(recordName: record.recordName, zoneRowID: record.zoneRowID, db)
        let target = Target(zoneRowID: record.zoneRowID, recordName: record.recordName, recordType: record.recordType)
        for (name, spec) in indexed {
            try index(target, field: name, spec: spec, value: record.fields[name], db)
        }
        for (name, spec, value) in undeclared {
            try index(target, field: name, spec: spec, value: value, db)
        }
    }

    /// Drops the index rows of a record (deleted, or about to be re-indexed).
    static func remove(recordName: String, zoneRowID: Int64, _ db: SQLiteConnection) throws {
        try db.execute("DELETE FROM field_index WHERE zone_id = ? AND record_name = ?", binding: zoneRowID, recordName)
        try db.execute("DELETE FROM field_tokens WHERE zone_id = ? AND record_name = ?", binding: zoneRowID, recordName)
    }

    /// Drops the index rows of a whole zone.
    static func removeZone(_ zoneRowID: Int64, _ db: SQLiteConnection) throws {
        try db.execute("DELETE FROM field_index WHERE zone_id = ?", binding: zoneRowID)
        try db.execute("DELETE FROM field_tokens WHERE zone_id = ?", binding: zoneRowID)
    }

    /// Writes the rows of one field of one record.
    static func index(_ target: Target, field name: String, spec: Spec, value: FieldValue?, _ db: SQLiteConnection) throws {
        guard let value else {
            if spec.nullRow { try insert(target, name, 0, Int64?.none, nil, db) }
            return
        }
        if spec.values {
            switch value {
            case .string(let text): try insert(target, name, 0, text, nil, db)
            case .int64(let integer): try insert(target, name, 0, integer, nil, db)
            case .double(let double): try insert(target, name, 0, double, nil, db)
            case .timestamp(let timestamp): try insert(target, name, 0, timestamp.millisecondsSince1970, nil, db)
            case .bytes(let data): try insert(target, name, 0, data, nil, db)
            case .reference(let reference): try insert(target, name, 0, reference.recordName, nil, db)
            case .location(let location): try insert(target, name, 0, location.latitude, location.longitude, db)
            case .stringList(let values):
                for (ordinal, text) in values.enumerated() { try insert(target, name, ordinal, text, nil, db) }
            case .int64List(let values):
                for (ordinal, integer) in values.enumerated() { try insert(target, name, ordinal, integer, nil, db) }
            case .doubleList(let values):
                for (ordinal, double) in values.enumerated() { try insert(target, name, ordinal, double, nil, db) }
            case .timestampList(let values):
                for (ordinal, timestamp) in values.enumerated() {
                    try insert(target, name, ordinal, timestamp.millisecondsSince1970, nil, db)
                }
            case .bytesList(let values):
                for (ordinal, data) in values.enumerated() { try insert(target, name, ordinal, data, nil, db) }
            case .referenceList(let values):
                for (ordinal, reference) in values.enumerated() { try insert(target, name, ordinal, reference.recordName, nil, db) }
            case .locationList(let values):
                for (ordinal, location) in values.enumerated() {
                    try insert(target, name, ordinal, location.latitude, location.longitude, db)
                }
            case .asset, .assetList, .emptyList:
                if spec.nullRow { try insert(target, name, 0, Int64?.none, nil, db) }
            }
        }
        if spec.tokens {
            let tokens: [String]
            switch value {
            case .string(let text): tokens = SearchTokenizer.tokens(in: text)
            case .stringList(let texts): tokens = SearchTokenizer.tokens(in: texts)
            default: tokens = []
            }
            for token in tokens {
                try db.execute(insertToken, binding: target.zoneRowID, target.recordName, name, token, target.recordType)
            }
        }
    }

    private static func insert<Value: SQLiteValueConvertible>(
        _ target: Target, _ name: String, _ ordinal: Int, _ value: Value, _ longitude: Double?, _ db: SQLiteConnection
    ) throws {
        try db.execute(insertValue, binding: target.zoneRowID, target.recordName, name, ordinal, target.recordType, value, longitude)
    }
}
