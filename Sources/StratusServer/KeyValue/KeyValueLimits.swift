import Foundation
public import StratusWire

/// The key-value store's home and limits (the server side of `NSUbiquitousKeyValueStore`).
///
/// Each user's key-value store is the reserved zone ``zoneName`` of their private database, one
/// record of type ``recordType`` per key (record name = key, the value in field ``valueField``), so it
/// syncs with the same change feed and subscriptions as everything else. The server enforces the
/// limits on every `records/modify` into that zone; past one, the operation fails with
/// `QUOTA_EXCEEDED` and a reason, and nothing of it is written.
public enum KeyValueLimits {
    /// The reserved zone's name.
    public static let zoneName = "StratusKeyValueStore"
    /// The record type of a key.
    public static let recordType = "KeyValue"
    /// The field holding a key's value.
    public static let valueField = "value"
    /// Total bytes of keys and values per user and app (1 MB).
    public static let maximumTotalBytes = 1_048_576
    /// Keys per user and app.
    public static let maximumKeys = 1024
    /// Bytes of one value (256 KB).
    public static let maximumValueBytes = 262_144
    /// Bytes (UTF-8) of one key.
    public static let maximumKeyBytes = 64

    /// The size a value counts for: the bytes of `BYTES` and `STRING` fields, the JSON of others,
    /// summed over the record's fields.
    ///
    /// - Parameter fields: The record's fields.
    /// - Returns: The size in bytes.
    public static func valueSize(_ fields: [String: FieldValue]) -> Int {
        fields.values.reduce(0) { total, value in
            switch value {
            case .bytes(let data): total + data.count
            case .string(let text): total + text.utf8.count
            default: total + ((try? WireCoding.encode(value))?.count ?? 0)
            }
        }
    }

    /// Why storing `size` bytes under `key` would break a limit, given the other keys' usage; `nil` when it fits.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - size: The value's size (``valueSize(_:)``).
    ///   - otherKeys: How many other keys are stored.
    ///   - otherBytes: The bytes (keys and values) the other keys use.
    /// - Returns: The reason, or `nil`.
    public static func violation(key: String, size: Int, otherKeys: Int, otherBytes: Int) -> String? {
        let keyBytes = key.utf8.count
        if keyBytes > maximumKeyBytes {
            return "key-value store: key '\(key.prefix(80))' is \(keyBytes) bytes; keys may have at most \(maximumKeyBytes)"
        }
        if size > maximumValueBytes {
            return "key-value store: the value of '\(key)' is \(size) bytes; a value may have at most \(maximumValueBytes)"
        }
        if otherKeys + 1 > maximumKeys {
            return "key-value store: storing '\(key)' would make \(otherKeys + 1) keys; at most \(maximumKeys) are allowed"
        }
        if otherBytes + keyBytes + size > maximumTotalBytes {
            return "key-value store: storing '\(key)' would use \(otherBytes + keyBytes + size) bytes; at most \(maximumTotalBytes) are allowed in total"
        }
        return nil
    }
}

/// The key-value zone's usage during one `records/modify` transaction: loaded once, kept current per operation.
struct KeyValueUsage {
    /// Bytes (key + value) per stored key.
    private var bytes: [String: Int]

    /// The usage of `zone`, or `nil` when it is not a key-value zone (then no limit applies).
    static func load(zone: ZoneRow, database: DatabaseKey, _ tx: any RecordStoreReader) throws -> KeyValueUsage? {
        guard database.scope == .private, zone.zoneName == KeyValueLimits.zoneName else { return nil }
        var bytes: [String: Int] = [:]
        for record in try tx.recordChanges(inZone: zone.rowID, after: 0, limit: Int.max, recordTypes: nil) where !record.isDeleted {
            bytes[record.recordName] = record.recordName.utf8.count + KeyValueLimits.valueSize(record.fields)
        }
        return KeyValueUsage(bytes: bytes)
    }

    /// Throws `QUOTA_EXCEEDED` when applying `operation` would break a limit.
    func admit(_ operation: RecordOperation, zone: ZoneRow, _ tx: any RecordStoreReader) throws {
        guard let fields = try prospectiveFields(operation, zone: zone, tx), let key = operation.record.recordName else { return }
        let size = KeyValueLimits.valueSize(fields)
        let others = bytes.filter { $0.key != key }
        if let reason = KeyValueLimits.violation(key: key, size: size, otherKeys: others.count, otherBytes: others.values.reduce(0, +)) {
            throw ServiceError(.quotaExceeded, reason)
        }
    }

    /// Records the effect of an applied operation.
    mutating func applied(_ operation: RecordOperation, zone: ZoneRow, _ tx: any RecordStoreReader) throws {
        guard let key = operation.record.recordName else { return }
        if let stored = try tx.record(named: key, inZone: zone.rowID), !stored.isDeleted {
            bytes[key] = key.utf8.count + KeyValueLimits.valueSize(stored.fields)
        } else {
            bytes[key] = nil
        }
    }

    /// The fields the record would have after a save; `nil` for deletions.
    private func prospectiveFields(_ operation: RecordOperation, zone: ZoneRow, _ tx: any RecordStoreReader) throws -> [String: FieldValue]? {
        let incoming = operation.record.fields ?? [:]
        switch operation.operationType {
        case .delete, .forceDelete: return nil
        case .create, .replace, .forceReplace: return incoming
        case .update, .forceUpdate:
            guard let name = operation.record.recordName, let stored = try tx.record(named: name, inZone: zone.rowID), !stored.isDeleted
            else { return incoming }
            return stored.fields.merging(incoming) { _, new in new }
        }
    }
}
