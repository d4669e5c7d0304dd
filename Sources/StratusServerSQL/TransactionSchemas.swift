public import StratusServer
public import StratusSQL
import StratusWire

/// The schemas one store transaction has read, and the schema key (container, environment) of
/// each zone it wrote to, so that indexing a record needs no extra read: the same bookkeeping on both back ends.
///
/// ```swift
/// import StratusServer
///
/// var schemas = TransactionSchemas()
/// let key = TransactionSchemas.Key(container: "iCloud.com.example.Notes", environment: "development")
/// let schema = schemas.schema(key) { _ in Schema() }  // read once, then remembered
/// ```
public struct TransactionSchemas {
    /// A container environment.
    public struct Key: Hashable, Sendable {
        /// The container identifier.
        public var container: String
        /// The environment's raw value.
        public var environment: String

        /// Creates a key.
        public init(container: String, environment: String) {
            self.container = container
            self.environment = environment
        }
    }

    private var schemas: [Key: Schema] = [:]
    private var zoneKeys: [Int64: Key] = [:]

    /// Nothing read yet.
    public init() {}

    /// The schema of `key` as this transaction sees it, read with `load` the first time.
    ///
    /// - Parameters:
    ///   - key: The container environment.
    ///   - load: Reads the stored schema.
    /// - Returns: The schema.
    /// - Throws: What `load` throws.
    public mutating func schema(_ key: Key, load: (Key) throws -> Schema) rethrows -> Schema {
        if let cached = schemas[key] { return cached }
        let schema = try load(key)
        schemas[key] = schema
        return schema
    }

    /// The schema this transaction sees now, if it read or wrote it.
    ///
    /// - Parameter key: The container environment.
    /// - Returns: The schema, or `nil`.
    public func known(_ key: Key) -> Schema? { schemas[key] }

    /// Notes a schema this transaction wrote.
    ///
    /// - Parameters:
    ///   - schema: The new schema.
    ///   - key: Its container environment.
    public mutating func wrote(_ schema: Schema, for key: Key) {
        schemas[key] = schema
    }

    /// Notes the database of a zone this transaction read.
    ///
    /// - Parameter zone: The zone.
    public mutating func noteZone(_ zone: ZoneRow) {
        zoneKeys[zone.rowID] = Key(container: zone.database.container, environment: zone.database.environment.rawValue)
    }

    /// The fields the schema declares for a record's type, as this transaction sees the schema.
    ///
    /// - Parameters:
    ///   - record: The record about to be written.
    ///   - dialect: The back end, for the error.
    ///   - zone: Reads a zone row, when the record's zone is not known yet.
    ///   - load: Reads a stored schema.
    /// - Returns: The declared fields (empty for an undeclared type).
    /// - Throws: ``SQLStoreCorruption`` when the record's zone does not exist; what the closures throw.
    public mutating func declaredFields(
        of record: StoredRecord, dialect: SQLDialect, zone: (Int64) throws -> ZoneRow?, load: (Key) throws -> Schema
    ) throws -> [String: FieldSchema] {
        let key: Key
        if let known = zoneKeys[record.zoneRowID] {
            key = known
        } else {
            guard let row = try zone(record.zoneRowID) else {
                throw SQLStoreCorruption(
                    message: "record '\(record.recordName)' is written to zone row \(record.zoneRowID), which does not exist", dialect: dialect)
            }
            key = Key(container: row.database.container, environment: row.database.environment.rawValue)
            zoneKeys[record.zoneRowID] = key
        }
        return try schema(key, load: load).recordTypes[record.recordType]?.fields ?? [:]
    }
}
