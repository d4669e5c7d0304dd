import StratusWire

/// The key-value zone's usage during one `records/modify` transaction: loaded once, kept current
/// per operation, so that every write into the zone keeps to ``KeyValueContract``'s limits.
struct KeyValueUsage {
    /// Bytes (key + value) per stored key.
    private var bytes: [String: Int]

    /// The usage of `zone`, or `nil` when it is not a key-value zone (then no limit applies).
    static func load(zone: ZoneRow, database: DatabaseKey, _ tx: any RecordStoreReader) throws -> KeyValueUsage? {
        guard database.scope == .private, zone.zoneName == KeyValueContract.zoneName else { return nil }
        var bytes: [String: Int] = [:]
        for record in try tx.recordChanges(inZone: zone.rowID, after: 0, limit: Int.max, recordTypes: nil) where !record.isDeleted {
            bytes[record.recordName] = record.recordName.utf8.count + (try Self.valueSize(record.fields))
        }
        return KeyValueUsage(bytes: bytes)
    }

    /// Throws `QUOTA_EXCEEDED` when applying `operation` would break a limit.
    func admit(_ operation: RecordOperation, zone: ZoneRow, _ tx: any RecordStoreReader) throws {
        guard let fields = try prospectiveFields(operation, zone: zone, tx), let key = operation.record.recordName else { return }
        let size = try Self.valueSize(fields)
        let others = bytes.filter { $0.key != key }
        if let violation = KeyValueContract.violation(key: key, size: size, otherKeys: others.count, otherBytes: others.values.reduce(0, +)) {
            throw ServiceError(.quotaExceeded, "key-value store: \(violation)")
        }
    }

    /// Records the effect of an applied operation.
    mutating func applied(_ operation: RecordOperation, zone: ZoneRow, _ tx: any RecordStoreReader) throws {
        guard let key = operation.record.recordName else { return }
        if let stored = try tx.record(named: key, inZone: zone.rowID), !stored.isDeleted {
            bytes[key] = key.utf8.count + (try Self.valueSize(stored.fields))
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

    /// ``KeyValueContract/valueSize(_:)``, a value with no JSON form refused as `BAD_REQUEST`.
    private static func valueSize(_ fields: [String: FieldValue]) throws(ServiceError) -> Int {
        do {
            return try KeyValueContract.valueSize(fields)
        } catch {
            throw .badRequest("key-value store: a value cannot be stored: \(error.reason)")
        }
    }
}
