import StratusSQLite

/// The SQL schema generated from a model: one table per entity, join tables, indexes.
///
/// Tables are named after entities and columns after properties, quoted; the store's own
/// tables and columns start with `Z_`, a prefix the model may not use.
struct StoreSchema: Sendable {
    /// The `CREATE` statements, in order.
    let statements: [String]
    /// The `CREATE TABLE` statement of each entity's table, by entity name.
    let entityTables: [String: String]
    /// The `CREATE TABLE` statement of each join table, by table name.
    let joinTables: [String: String]
    /// The `CREATE INDEX` statements.
    let indexes: [String]

    static let metadataTable = "Z_METADATA"
    static let primaryKeyTable = "Z_PRIMARYKEY"
    static let primaryKeyColumn = "Z_PK"
    /// The column holding the version of a row's values (optimistic locking).
    static let versionColumn = "Z_OPT"
    /// The row of ``primaryKeyTable`` that holds the highest version handed out.
    static let versionCounter = "Z_VERSION"
    static let transactionTable = "Z_TRANSACTION"
    static let changeTable = "Z_CHANGE"

    init(model: ResolvedModel) {
        var statements: [String] = []
        var entityTables: [String: String] = [:]
        var joinTables: [String: String] = [:]
        var indexes: [String] = []
        for entity in model.entities {
            let table = Self.createTable(entity)
            entityTables[entity.name] = table
            statements.append(table)
            let entityIndexes = Self.indexes(of: entity)
            indexes += entityIndexes
            statements += entityIndexes
            for relationship in entity.toManyRelationships {
                guard case .joinTable(let join) = relationship.storage, join.isOwner else { continue }
                let create = Self.createJoinTable(join.table)
                let index = "CREATE INDEX \(quote("\(join.table)_TARGET")) ON \(quote(join.table)) (Z_TARGET, Z_SOURCE)"
                joinTables[join.table] = create
                indexes.append(index)
                statements += [create, index]
            }
        }
        self.statements = statements
        self.entityTables = entityTables
        self.joinTables = joinTables
        self.indexes = indexes
    }

    /// The `CREATE TABLE` statement of an entity's table.
    static func createTable(_ entity: Entity) -> String {
        var columns = ["\(primaryKeyColumn) INTEGER PRIMARY KEY"]
        columns += entity.attributes.map { "\(quote($0.name)) \($0.type.sqlColumnType)" }
        columns += entity.toOneRelationships.map { "\(quote($0.name)) INTEGER" }
        columns.append("\(versionColumn) INTEGER NOT NULL DEFAULT 1")
        return "CREATE TABLE \(quote(entity.name)) (\(columns.joined(separator: ", ")))"
    }

    /// The `CREATE TABLE` statement of a join table.
    static func createJoinTable(_ table: String) -> String {
        "CREATE TABLE \(quote(table)) (Z_SOURCE INTEGER NOT NULL, Z_TARGET INTEGER NOT NULL, PRIMARY KEY (Z_SOURCE, Z_TARGET)) WITHOUT ROWID"
    }

    /// The indexes of an entity's table: foreign keys, uniqueness constraints, declared indexes.
    static func indexes(of entity: Entity) -> [String] {
        var statements: [String] = []
        for relationship in entity.toOneRelationships {
            statements.append(
                "CREATE INDEX \(quote("Z_FK_\(entity.name)_\(relationship.name)")) ON \(quote(entity.name)) (\(quote(relationship.name)))"
            )
        }
        for (index, group) in entity.description.uniquenessConstraints.enumerated() {
            statements.append(
                "CREATE UNIQUE INDEX \(quote("Z_UNQ_\(entity.name)_\(index)")) ON \(quote(entity.name)) (\(group.map(quote).joined(separator: ", ")))"
            )
        }
        for (index, group) in entity.description.indexes.enumerated() {
            statements.append(
                "CREATE INDEX \(quote("Z_IDX_\(entity.name)_\(index)")) ON \(quote(entity.name)) (\(group.map(quote).joined(separator: ", ")))"
            )
        }
        return statements
    }

    /// A 64-bit FNV-1a hash of the statements, in hexadecimal: changes whenever the generated schema changes.
    var fingerprint: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for statement in statements {
            for byte in statement.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x100_0000_01b3
            }
            hash ^= 0x0A
            hash = hash &* 0x100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The migrator that creates the store's own tables: metadata, key and version counters, persistent history.
    ///
    /// The model's tables are created, and migrated between model versions, by ``PersistentStore``.
    static var storeMigrator: SQLiteMigrator {
        var migrator = SQLiteMigrator()
        migrator.registerMigration("StratusStore.metadata") { db in
            try db.execute(sql: "CREATE TABLE \(metadataTable) (Z_KEY TEXT NOT NULL PRIMARY KEY, Z_VALUE TEXT NOT NULL)")
            try db.execute(sql: "CREATE TABLE \(primaryKeyTable) (Z_ENTITY TEXT NOT NULL PRIMARY KEY, Z_MAX INTEGER NOT NULL)")
        }
        migrator.registerMigration("StratusStore.history") { db in
            try db.execute(
                sql: "CREATE TABLE \(transactionTable) (Z_PK INTEGER PRIMARY KEY AUTOINCREMENT, Z_AUTHOR TEXT, "
                    + "Z_TIMESTAMP REAL NOT NULL)")
            try db.execute(
                sql: "CREATE TABLE \(changeTable) (Z_PK INTEGER PRIMARY KEY, Z_TRANSACTION INTEGER NOT NULL, "
                    + "Z_ENTITY TEXT NOT NULL, Z_ENTITYPK INTEGER NOT NULL, Z_LASTPK INTEGER NOT NULL, Z_TYPE INTEGER NOT NULL, "
                    + "Z_KEYS TEXT)")
            try db.execute(sql: "CREATE INDEX Z_CHANGE_TRANSACTION ON \(changeTable) (Z_TRANSACTION)")
            try db.execute(sql: "CREATE INDEX Z_TRANSACTION_TIMESTAMP ON \(transactionTable) (Z_TIMESTAMP)")
        }
        return migrator
    }
}

/// `name` as an SQL identifier in double quotes (model names are validated to hold no quotes).
func quote(_ name: String) -> String {
    "\"\(name)\""
}
