import Foundation
import StratusLogging
import StratusSQLite

extension PersistentStore {
    /// Creates the model's tables in a new store, checks an existing store's model, or migrates it to `model`.
    ///
    /// Runs on the writer, outside a transaction; creation and migration each run in one transaction.
    static func prepareModel(
        _ db: SQLiteConnection, model: ObjectModel, schema: StoreSchema, path: String,
        progress: (@Sendable (Double) -> Void)?
    ) throws {
        var metadata: [String: String] = [:]
        try db.forEachRow("SELECT Z_KEY, Z_VALUE FROM \(StoreSchema.metadataTable)") { row in
            metadata[try row[0]] = try row[1]
        }
        let newModelJSON = try StoredModel(model).json()
        guard let version = metadata["modelVersion"] else {
            try db.transaction(.immediate) { db in
                for statement in schema.statements {
                    try db.execute(sql: statement)
                }
                try writeModelMetadata(db, model: model, schema: schema, json: newModelJSON)
            }
            return
        }
        if version == model.versionIdentifier {
            guard metadata["modelFingerprint"] == schema.fingerprint else {
                throw StoreError(
                    code: .modelChangedWithoutNewVersion,
                    message: "the store at \(path) was written with a different model under the same version identifier "
                        + "\"\(version)\"; give the changed model a new version identifier")
            }
            return
        }
        let failure = "cannot migrate the store at \(path) from model version \"\(version)\" to \"\(model.versionIdentifier)\""
        guard let json = metadata["model"], let descriptions = try? StoredModel.decode(json).descriptions else {
            throw StoreError(
                code: .incompatibleMigration, message: "\(failure): the store does not record a model it was written with")
        }
        let plan = MigrationPlan(from: ResolvedModel(entities: descriptions), to: model.resolved, schema: schema)
        guard plan.problems.isEmpty else {
            throw StoreError(
                code: .incompatibleMigration,
                message: "\(failure): " + plan.problems.joined(separator: "; "))
        }
        progress?(0)
        try db.transaction(.immediate) { db in
            // Each step counts one unit, a fill one unit per chunk of rows, the metadata one more.
            let units = try plan.steps.map { step in try Self.units(of: step, db) }
            let total = Double(units.reduce(1, +))
            var done = 0
            for step in plan.steps {
                try run(step, db, failure: failure) {
                    done += 1
                    progress?(min(Double(done) / total, 1))
                }
            }
            try writeModelMetadata(db, model: model, schema: schema, json: newModelJSON)
        }
        progress?(1)
        db.logger.info(
            "migrated object store",
            metadata: ["path": path, "from": version, "to": model.versionIdentifier, "steps": "\(plan.steps.count)"])
    }

    /// Rows a fill updates per statement, so that a long migration reports progress as it goes.
    static let fillChunkRows: Int64 = 5_000

    /// The progress units of a step: one, or one per chunk of rows for a fill.
    private static func units(of step: MigrationPlan.Step, _ db: SQLiteConnection) throws -> Int {
        guard case .fill(_, _, _, _, let sourceTable) = step else { return 1 }
        let highest =
            try db.fetchOne(Int64?.self, "SELECT max(\(StoreSchema.primaryKeyColumn)) FROM \(quote(sourceTable))") ?? nil
        return max(1, Int(((highest ?? 0) + fillChunkRows - 1) / fillChunkRows))
    }

    /// Runs a step, calling `advance` once per progress unit done.
    private static func run(
        _ step: MigrationPlan.Step, _ db: SQLiteConnection, failure: String, advance: () -> Void
    ) throws {
        switch step {
        case .fill(let table, let column, let value, let onlyNull, _):
            let highest = try db.fetchOne(Int64?.self, "SELECT max(\(StoreSchema.primaryKeyColumn)) FROM \(quote(table))") ?? nil
            var start: Int64 = 0
            repeat {
                try db.execute(
                    "UPDATE \(quote(table)) SET \(quote(column)) = ? WHERE \(StoreSchema.primaryKeyColumn) > ? "
                        + "AND \(StoreSchema.primaryKeyColumn) <= ?" + (onlyNull ? " AND \(quote(column)) IS NULL" : ""),
                    SQLiteArguments([value, .integer(start), .integer(start + fillChunkRows)]))
                start += fillChunkRows
                advance()
            } while start < (highest ?? 0)
        default:
            try run(step, db, failure: failure)
            advance()
        }
    }

    private static func run(_ step: MigrationPlan.Step, _ db: SQLiteConnection, failure: String) throws {
        switch step {
        case .sql(let sql):
            do {
                try db.execute(sql: sql)
            } catch let error as SQLiteError where error.code == .constraintUnique {
                throw StoreError(
                    code: .incompatibleMigration,
                    message: "\(failure): existing rows break a uniqueness constraint of the new model (\(error.message))",
                    underlying: error)
            }
        case .fill:
            preconditionFailure("fills run in chunks")
        case .dropStoreIndexes:
            let names = try db.fetchAll(
                String.self,
                "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND name LIKE 'Z\\_%' ESCAPE '\\' "
                    + "AND tbl_name NOT IN ('\(StoreSchema.transactionTable)', '\(StoreSchema.changeTable)')")
            for name in names {
                try db.execute(sql: "DROP INDEX \(quote(name))")
            }
        }
    }

    private static func writeModelMetadata(_ db: SQLiteConnection, model: ObjectModel, schema: StoreSchema, json: String) throws {
        let upsert =
            "INSERT INTO \(StoreSchema.metadataTable) (Z_KEY, Z_VALUE) VALUES (?, ?) "
            + "ON CONFLICT (Z_KEY) DO UPDATE SET Z_VALUE = excluded.Z_VALUE"
        try db.execute(upsert, ["modelVersion", model.versionIdentifier])
        try db.execute(upsert, ["modelFingerprint", schema.fingerprint])
        try db.execute(upsert, ["model", json])
    }
}
