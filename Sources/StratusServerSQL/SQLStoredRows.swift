public import Foundation
public import StratusServer
public import StratusSQL
public import StratusWire

/// Zone and record rows as both back ends store them: the column lists and their decoding, and
/// the `records.fields` value (the record's fields as canonical wire JSON,
/// `{"name":{"type":…,"value":…},…}`).
///
/// The fields are written by `WireCoding.encode`, whose direct writer handles a fields dictionary
/// without `Codable`, and read back by the same rules as `WireCoding.decode`, without the
/// `Codable` machinery: parsed into a `JSONValue` tree and read with `FieldValue(json:)`. The
/// Codable path cost about 10 µs per ~200-byte record each way, as much as all of the SQLite
/// work of a write.
public enum SQLStoredRows {
    /// The zone columns ``zone(_:dialect:)`` reads, in order.
    public static let zoneColumns = "id, container, environment, scope, owner, zone_name, change_seq, db_seq, created_at, deleted"

    /// The record columns ``record(_:dialect:)`` reads, in order; a query's own columns may follow them.
    public static let recordColumns =
        "zone_id, record_name, record_type, change_tag, seq, deleted, fields, created_at, created_by, created_device, modified_at, modified_by, modified_device"

    /// How many columns ``recordColumns`` names.
    public static let recordColumnCount = 13

    /// Reads a zone row.
    ///
    /// - Parameters:
    ///   - row: A row of ``zoneColumns``.
    ///   - dialect: The back end, for the error.
    /// - Throws: The driver's error, or ``SQLStoreCorruption`` for an unknown environment or scope.
    @inlinable
    public static func zone(_ row: some SQLRow, dialect: SQLDialect) throws -> ZoneRow {
        let environment: String = try row[2]
        let scope: String = try row[3]
        guard let environmentValue = Environment(rawValue: environment), let scopeValue = DatabaseScope(rawValue: scope) else {
            throw SQLStoreCorruption(
                message: "zone row \(try row[0] as Int64) has environment '\(environment)' and scope '\(scope)'", dialect: dialect)
        }
        return ZoneRow(
            rowID: try row[0],
            database: DatabaseKey(container: try row[1], environment: environmentValue, scope: scopeValue, owner: try row[4]),
            zoneName: try row[5], changeSequence: try row[6], databaseSequence: try row[7], createdAt: try row[8],
            isDeleted: try row[9]
        )
    }

    /// Reads a record (or tombstone) row.
    ///
    /// - Parameters:
    ///   - row: A row that starts with ``recordColumns``.
    ///   - dialect: The back end, for the error.
    /// - Throws: The driver's error, or ``SQLStoreCorruption`` for fields that do not decode.
    @inlinable
    public static func record(_ row: some SQLRow, dialect: SQLDialect) throws -> StoredRecord {
        let deleted: Bool = try row[5]
        var fields: [String: FieldValue] = [:]
        if !deleted, let body = try row[6] as Data? {
            fields = try decodeFields(body, dialect: dialect)
        }
        return StoredRecord(
            zoneRowID: try row[0], recordName: try row[1], recordType: try row[2], changeTag: try row[3], fields: fields,
            created: StoredRecord.Stamp(timestamp: try row[7], userRecordName: try row[8], deviceID: try row[9]),
            modified: StoredRecord.Stamp(timestamp: try row[10], userRecordName: try row[11], deviceID: try row[12]),
            changeSequence: try row[4], isDeleted: deleted
        )
    }

    /// The `records.fields` value of a record's fields.
    ///
    /// - Parameter fields: The fields.
    /// - Returns: Canonical wire JSON.
    /// - Throws: What `WireCoding.encode` throws.
    public static func encodeFields(_ fields: [String: FieldValue]) throws -> Data {
        // NB: `WireCoding.encode` writes a fields dictionary with StratusWire's direct writer.
        try WireCoding.encode(fields)
    }

    /// A record's fields from its `records.fields` value.
    ///
    /// - Parameters:
    ///   - blob: The stored value.
    ///   - dialect: The back end, for the error.
    /// - Returns: The fields.
    /// - Throws: ``SQLStoreCorruption`` when the value is not a JSON object; what `FieldValue(json:)` throws.
    public static func decodeFields(_ blob: Data, dialect: SQLDialect) throws -> [String: FieldValue] {
        guard case .object(let members) = try JSONValue(parsing: blob) else {
            throw SQLStoreCorruption(message: "a records.fields value is not a JSON object", dialect: dialect)
        }
        var fields: [String: FieldValue] = [:]
        fields.reserveCapacity(members.count)
        for (name, value) in members {
            fields[name] = try FieldValue(json: value)
        }
        return fields
    }
}
