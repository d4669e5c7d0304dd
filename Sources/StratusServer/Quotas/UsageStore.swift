import StratusWire

/// Bytes a database (or one zone of it) holds, as quotas count them.
public struct StorageUsage: Hashable, Sendable {
    /// Record data: field names and values, assets excluded.
    public var recordBytes: Int64
    /// The sizes of the assets the records reference.
    public var assetBytes: Int64

    /// Creates a usage.
    public init(recordBytes: Int64 = 0, assetBytes: Int64 = 0) {
        self.recordBytes = recordBytes
        self.assetBytes = assetBytes
    }

    /// Nothing.
    public static let zero = StorageUsage()

    /// Both counts added.
    public static func + (lhs: StorageUsage, rhs: StorageUsage) -> StorageUsage {
        StorageUsage(recordBytes: lhs.recordBytes + rhs.recordBytes, assetBytes: lhs.assetBytes + rhs.assetBytes)
    }

    /// Both counts subtracted.
    public static func - (lhs: StorageUsage, rhs: StorageUsage) -> StorageUsage {
        StorageUsage(recordBytes: lhs.recordBytes - rhs.recordBytes, assetBytes: lhs.assetBytes - rhs.assetBytes)
    }
}

/// Usage counters kept in step with record writes, for storage quotas.
///
/// Part of every ``RecordStoreWriter``, so quotas hold on every back end. Counters are per
/// zone, so a deleted zone's usage disappears with it.
public protocol UsageStoreWriter {
    /// The usage of the live zones of `database`.
    func usage(of database: DatabaseKey) throws -> StorageUsage

    /// Adds `delta` (negative to release) to the counters of a zone.
    func addUsage(_ delta: StorageUsage, zoneRowID: Int64) throws
}

/// How many bytes quotas count for a record.
enum RecordUsage {
    /// A fixed cost per record (system fields), so empty records are not free.
    static let recordOverhead: Int64 = 128

    /// The usage of a live record; nothing for `nil` or a tombstone.
    static func of(_ record: StoredRecord?) -> StorageUsage {
        guard let record, !record.isDeleted else { return .zero }
        var usage = StorageUsage(recordBytes: recordOverhead + Int64(record.recordName.utf8.count + record.recordType.utf8.count))
        for (name, value) in record.fields {
            usage.recordBytes += Int64(name.utf8.count)
            switch value {
            case .string(let string): usage.recordBytes += Int64(string.utf8.count)
            case .int64, .double, .timestamp: usage.recordBytes += 8
            case .bytes(let data): usage.recordBytes += Int64(data.count)
            case .reference(let reference): usage.recordBytes += Int64(reference.recordName.utf8.count) + 16
            case .location: usage.recordBytes += 64
            case .asset(let asset): usage.assetBytes += asset.size ?? 0
            case .stringList(let strings): usage.recordBytes += strings.reduce(0) { $0 + Int64($1.utf8.count) + 1 }
            case .int64List(let values): usage.recordBytes += 8 * Int64(values.count)
            case .doubleList(let values): usage.recordBytes += 8 * Int64(values.count)
            case .timestampList(let values): usage.recordBytes += 8 * Int64(values.count)
            case .bytesList(let values): usage.recordBytes += values.reduce(0) { $0 + Int64($1.count) }
            case .referenceList(let values): usage.recordBytes += values.reduce(0) { $0 + Int64($1.recordName.utf8.count) + 16 }
            case .assetList(let assets): usage.assetBytes += assets.reduce(0) { $0 + ($1.size ?? 0) }
            case .locationList(let values): usage.recordBytes += 64 * Int64(values.count)
            case .emptyList: break
            }
        }
        return usage
    }
}
