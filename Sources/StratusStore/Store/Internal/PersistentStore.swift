import Foundation
import StratusLogging
import StratusSQLite
import Synchronization

/// The SQLite store under the root context: opens and checks the file, reads rows, writes a root save in one transaction.
///
/// Thread-safe: reads go to the pool's readers, writes to its writer, and the primary-key
/// allocator is behind a mutex, so any context may read through it from its own queue.
final class PersistentStore: Sendable {
    let model: ObjectModel
    let url: URL
    let database: SQLiteDatabasePool
    let logger: Logger
    let options: Options
    /// The highest primary key handed out per entity.
    private let highestKeys: Mutex<[String: Int64]>
    /// The highest version handed out.
    private let highestVersion: Atomic<Int64>

    /// How the store was opened.
    struct Options: Sendable {
        var readerCount = 4
        /// The bytes of the file each connection memory-maps (`PRAGMA mmap_size`): reads skip a `pread` per page.
        var mmapSize = 256 << 20
        /// Whether root saves record persistent history.
        var recordsHistory = true
        /// The clock that timestamps history transactions.
        var now: @Sendable () -> Date = { Date() }
        /// Called with the fraction of a migration done.
        var progress: (@Sendable (Double) -> Void)?
    }

    var resolved: ResolvedModel { model.resolved }

    private init(
        model: ObjectModel, url: URL, database: SQLiteDatabasePool, logger: Logger, options: Options,
        highestKeys: [String: Int64]
    ) {
        self.model = model
        self.url = url
        self.database = database
        self.logger = logger
        self.options = options
        self.highestVersion = Atomic(highestKeys[StoreSchema.versionCounter] ?? 0)
        self.highestKeys = Mutex(highestKeys)
    }

    /// Opens (creating if needed) the store at `url`, creates or migrates the tables. Blocks.
    static func open(url: URL, model: ObjectModel, options: Options, logger: Logger) throws -> PersistentStore {
        let readerCount = options.readerCount
        let schema = StoreSchema(model: model.resolved)
        var configuration = SQLiteConfiguration(path: url.path)
        configuration.readerCount = max(readerCount, 1)
        configuration.mmapSize = options.mmapSize
        let database: SQLiteDatabasePool
        do {
            database = try SQLiteDatabasePool(configuration: configuration, logger: logger)
        } catch {
            throw StoreError.wrapping(error, "could not open the store at \(url.path)")
        }
        do {
            try database.writeWithoutTransactionSync { db in
                try StoreSchema.storeMigrator.migrate(db)
                try prepareModel(db, model: model, schema: schema, path: url.path, progress: options.progress)
            }
            let highestKeys = try database.readSync { db in
                var keys: [String: Int64] = [:]
                for entity in model.resolved.entities {
                    keys[entity.name] =
                        (try db.fetchOne(Int64?.self, "SELECT max(\(StoreSchema.primaryKeyColumn)) FROM \(quote(entity.name))") ?? nil) ?? 0
                }
                try db.forEachRow("SELECT Z_ENTITY, Z_MAX FROM \(StoreSchema.primaryKeyTable)") { row in
                    let name: String = try row[0]
                    let highest: Int64 = try row[1]
                    keys[name] = max(keys[name] ?? 0, highest)
                }
                return keys
            }
            logger.debug("opened object store", metadata: ["path": url.path, "modelVersion": model.versionIdentifier])
            return PersistentStore(
                model: model, url: url, database: database, logger: logger, options: options, highestKeys: highestKeys)
        } catch {
            do { try database.close() } catch {}
            throw StoreError.wrapping(error, "could not open the store at \(url.path)")
        }
    }

    /// Closes the database.
    func close() throws {
        try database.close()
    }

    // MARK: Primary keys

    /// Reserves `count` new primary keys for `entityName`, returning the first.
    func allocatePrimaryKeys(_ entityName: String, count: Int) -> Int64 {
        highestKeys.withLock { keys in
            let first = (keys[entityName] ?? 0) + 1
            keys[entityName] = first + Int64(count) - 1
            return first
        }
    }

    /// A new version number, higher than any handed out or stored before.
    func allocateVersion() -> Int64 {
        highestVersion.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// The highest version handed out so far.
    var highestAllocatedVersion: Int64 {
        highestVersion.load(ordering: .relaxed)
    }

    /// The highest primary key handed out so far for `entityName`.
    func highestPrimaryKey(_ entityName: String) -> Int64 {
        highestKeys.withLock { $0[entityName] ?? 0 }
    }

    // MARK: Reading

    /// The stored rows of `ids` (temporary and missing IDs are left out).
    func snapshots(for ids: some Collection<ObjectID>) throws -> [ObjectID: Snapshot] {
        var byEntity: [String: [Int64]] = [:]
        for id in ids {
            if let key = id.primaryKey { byEntity[id.entityName, default: []].append(key) }
        }
        guard !byEntity.isEmpty else { return [:] }
        do {
            return try database.readSync { db in
                var result: [ObjectID: Snapshot] = [:]
                for (entityName, keys) in byEntity {
                    let entity = resolved.entity(entityName)
                    let sql =
                        "SELECT \(Self.columns(of: entity, alias: nil)) FROM \(quote(entity.name)) "
                        + "WHERE \(StoreSchema.primaryKeyColumn) IN (SELECT value FROM json_each(?))"
                    let list = "[" + keys.map(String.init).joined(separator: ",") + "]"
                    try db.forEachRow(sql, [list]) { row in
                        let (id, snapshot) = try Self.decode(row, entity: entity)
                        result[id] = snapshot
                    }
                }
                return result
            }
        } catch {
            throw StoreError.wrapping(error, "could not read objects")
        }
    }

    /// The stored members of a to-many relationship of `id`.
    func relatedIDs(of id: ObjectID, _ relationship: Relationship) throws -> Set<ObjectID> {
        guard let key = id.primaryKey else { return [] }
        let sql: String
        switch relationship.storage {
        case .foreignKey(let column):
            sql =
                "SELECT \(quote(column)) FROM \(quote(relationship.sourceEntityName)) WHERE \(StoreSchema.primaryKeyColumn) = ? AND \(quote(column)) IS NOT NULL"
        case .inverseForeignKey(let column):
            sql = "SELECT \(StoreSchema.primaryKeyColumn) FROM \(quote(relationship.destinationEntityName)) WHERE \(quote(column)) = ?"
        case .joinTable(let join):
            sql = "SELECT \(join.targetColumn) FROM \(quote(join.table)) WHERE \(join.sourceColumn) = ?"
        }
        do {
            let keys = try database.readSync { db in try db.fetchAll(Int64.self, sql, [key]) }
            return Set(keys.map { ObjectID.permanent(relationship.destinationEntityName, $0) })
        } catch {
            throw StoreError.wrapping(error, "could not read \(id).\(relationship.name)")
        }
    }

    /// The rows a query selects, in its order.
    func fetch(_ query: StoreQuery) throws -> [(ObjectID, Snapshot)] {
        let sql = "SELECT \(Self.columns(of: query.entity, alias: "t0")) \(query.fromWhereOrderSQL)"
        do {
            return try database.readSync { db in
                try db.fetchAll(sql, SQLiteArguments(query.arguments)) { row in try Self.decode(row, entity: query.entity) }
            }
        } catch {
            throw StoreError.wrapping(error, "could not fetch \(query.entity.name) objects")
        }
    }

    /// The IDs a query selects, in its order.
    func fetchIDs(_ query: StoreQuery) throws -> [ObjectID] {
        let sql = "SELECT t0.\(StoreSchema.primaryKeyColumn) \(query.fromWhereOrderSQL)"
        let name = query.entity.name
        do {
            return try database.readSync { db in
                try db.fetchAll(Int64.self, sql, SQLiteArguments(query.arguments)).map { ObjectID.permanent(name, $0) }
            }
        } catch {
            throw StoreError.wrapping(error, "could not fetch \(name) objects")
        }
    }

    /// How many rows a query selects (ignoring its order, with its limit and offset).
    func count(_ query: StoreQuery) throws -> Int {
        let sql = "SELECT count(*) FROM (SELECT t0.\(StoreSchema.primaryKeyColumn) \(query.fromWhereOrderSQL))"
        do {
            return try database.readSync { db in try db.fetchOne(Int.self, sql, SQLiteArguments(query.arguments)) ?? 0 }
        } catch {
            throw StoreError.wrapping(error, "could not count \(query.entity.name) objects")
        }
    }

    /// The selected columns of an entity's table: the primary key, the attributes, then the to-one foreign keys.
    static func columns(of entity: Entity, alias: String?) -> String {
        let prefix = alias.map { "\($0)." } ?? ""
        var columns = [prefix + StoreSchema.primaryKeyColumn]
        columns += entity.attributes.map { prefix + quote($0.name) }
        columns += entity.toOneRelationships.map { prefix + quote($0.name) }
        columns.append(prefix + StoreSchema.versionColumn)
        return columns.joined(separator: ", ")
    }

    /// Reads a row selected with ``columns(of:alias:)``.
    static func decode(_ row: SQLiteRow, entity: Entity) throws -> (ObjectID, Snapshot) {
        let key: Int64 = try row[0]
        let id = ObjectID.permanent(entity.name, key)
        var attributes: [AttributeValue?] = []
        attributes.reserveCapacity(entity.attributes.count)
        for (index, attribute) in entity.attributes.enumerated() {
            let stored = row.value(at: 1 + index)
            guard let value = AttributeValue.read(stored, as: attribute.type) else {
                throw StoreError(
                    code: .invalidStoredValue,
                    message: "the stored value \(stored) of \(id).\(attribute.name) is not a \(attribute.type)",
                    entityName: entity.name, key: attribute.name, objectID: id)
            }
            attributes.append(value)
        }
        let base = 1 + entity.attributes.count
        var toOne: [ObjectID?] = []
        toOne.reserveCapacity(entity.toOneRelationships.count)
        for (index, relationship) in entity.toOneRelationships.enumerated() {
            let related: Int64? = try row[base + index]
            toOne.append(related.map { ObjectID.permanent(relationship.destinationEntityName, $0) })
        }
        let version: Int64 = try row[base + entity.toOneRelationships.count]
        return (id, Snapshot(attributes: attributes, toOne: toOne, version: version))
    }
}
