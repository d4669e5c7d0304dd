import StratusSQLite

/// The SQL schema generated from a model: one table per entity, join tables, indexes.
///
/// Tables are named after entities and columns after properties, quoted; the store's own
/// tables and columns start with `Z_`, a prefix the model may not use.
struct StoreSchema: Sendable {
    /// The `CREATE` statements, in order.
    let statements: [String]

    static let metadataTable = "Z_METADATA"
    static let primaryKeyTable = "Z_PRIMARYKEY"
    static let primaryKeyColumn = "Z_PK"

    init(model: ResolvedModel) {
        var statements: [String] = []
        for entity in model.entities {
            var columns = ["\(Self.primaryKeyColumn) INTEGER PRIMARY KEY"]
            columns += entity.attributes.map { "\(quote($0.name)) \($0.type.sqlColumnType)" }
            columns += entity.toOneRelationships.map { "\(quote($0.name)) INTEGER" }
            statements.append("CREATE TABLE \(quote(entity.name)) (\(columns.joined(separator: ", ")))")
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
            for relationship in entity.toManyRelationships {
                guard case .joinTable(let join) = relationship.storage, join.isOwner else { continue }
                statements.append(
                    "CREATE TABLE \(quote(join.table)) (Z_SOURCE INTEGER NOT NULL, Z_TARGET INTEGER NOT NULL, PRIMARY KEY (Z_SOURCE, Z_TARGET)) WITHOUT ROWID"
                )
                statements.append("CREATE INDEX \(quote("\(join.table)_TARGET")) ON \(quote(join.table)) (Z_TARGET, Z_SOURCE)")
            }
        }
        self.statements = statements
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

    /// The migrator that creates the store's own tables, then the model's.
    static func migrator(model: ObjectModel, schema: StoreSchema) -> SQLiteMigrator {
        var migrator = SQLiteMigrator()
        migrator.registerMigration("StratusStore.metadata") { db in
            try db.execute(sql: "CREATE TABLE \(metadataTable) (Z_KEY TEXT NOT NULL PRIMARY KEY, Z_VALUE TEXT NOT NULL)")
            try db.execute(sql: "CREATE TABLE \(primaryKeyTable) (Z_ENTITY TEXT NOT NULL PRIMARY KEY, Z_MAX INTEGER NOT NULL)")
        }
        let version = model.versionIdentifier
        let fingerprint = schema.fingerprint
        migrator.registerMigration("StratusStore.model.\(version)") { db in
            for statement in schema.statements {
                try db.execute(sql: statement)
            }
            try db.execute("INSERT INTO \(metadataTable) (Z_KEY, Z_VALUE) VALUES ('modelVersion', ?)", [version])
            try db.execute("INSERT INTO \(metadataTable) (Z_KEY, Z_VALUE) VALUES ('modelFingerprint', ?)", [fingerprint])
        }
        return migrator
    }
}

/// `name` as an SQL identifier in double quotes (model names are validated to hold no quotes).
func quote(_ name: String) -> String {
    "\"\(name)\""
}
