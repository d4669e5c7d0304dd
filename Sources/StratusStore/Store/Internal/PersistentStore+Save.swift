import Foundation
import StratusSQLite

extension PersistentStore {
    /// Writes a root context's changes in one transaction: deletions, then updates, then insertions, then history.
    ///
    /// Either every change is stored or, if anything fails, none. Updated and deleted rows
    /// are checked first: a row whose version is not the one the change was made on is a
    /// conflict, which the change set's merge policy resolves (or, for ``MergePolicy/error``, fails the save).
    ///
    /// - Returns: The conflicts resolved by the merge policy and the last history token written.
    /// - Throws: ``StoreError`` with ``StoreError/Code/mergeConflict``,
    ///   ``StoreError/Code/uniquenessViolation`` naming the object that broke a constraint, or ``StoreError/Code/sqlite``.
    func save(_ changes: ChangeSet) throws -> SaveOutcome {
        let resolved = self.resolved
        let highest = highestKeys(for: Set(changes.inserted.map(\.objectID.entityName)))
        let highestVersion = highestAllocatedVersion
        let options = options
        do {
            return try database.writeSync { db in
                var changes = changes
                let conflicts = try Self.checkVersions(&changes, resolved: resolved, db)
                for deletion in changes.deleted {
                    try Self.delete(deletion.objectID, entity: resolved.entity(deletion.objectID.entityName), db)
                }
                for update in changes.updated {
                    try Self.guarded(update.objectID) {
                        try Self.update(update, entity: resolved.entity(update.objectID.entityName), db)
                    }
                }
                // One prepared INSERT per entity, bound value by value: no SQL text or argument array per row.
                var statements: [String: SQLiteStatement] = [:]
                for insertion in changes.inserted {
                    let entity = resolved.entity(insertion.objectID.entityName)
                    let statement = try statements[entity.name] ?? db.cachedStatement(sql: Self.insertSQL(entity))
                    statements[entity.name] = statement
                    try Self.guarded(insertion.objectID) { try Self.insert(insertion, entity: entity, statement: statement, db) }
                }
                for (entityName, key) in highest + [(StoreSchema.versionCounter, highestVersion)] {
                    try db.execute(
                        "INSERT INTO \(StoreSchema.primaryKeyTable) (Z_ENTITY, Z_MAX) VALUES (?, ?) "
                            + "ON CONFLICT (Z_ENTITY) DO UPDATE SET Z_MAX = max(Z_MAX, excluded.Z_MAX)",
                        [entityName, key])
                }
                var outcome = SaveOutcome(resolvedConflicts: conflicts)
                if options.recordsHistory {
                    outcome.historyToken = try Self.recordHistory(changes, resolved: resolved, date: options.now(), db)
                }
                return outcome
            }
        } catch {
            throw StoreError.wrapping(error, "could not save to \(url.path)")
        }
    }

    /// Compares the versions of updated and deleted rows with those the changes were made on, and
    /// applies the merge policy to the conflicts: drops or trims changes, or throws for ``MergePolicy/error``.
    private static func checkVersions(
        _ changes: inout ChangeSet, resolved: ResolvedModel, _ db: SQLiteConnection
    ) throws
        -> [MergeConflict]
    {
        var byEntity: [String: [Int64]] = [:]
        for update in changes.updated where update.changesValues {
            byEntity[update.objectID.entityName, default: []].append(primaryKey(update.objectID))
        }
        for deletion in changes.deleted {
            byEntity[deletion.objectID.entityName, default: []].append(primaryKey(deletion.objectID))
        }
        guard !byEntity.isEmpty else { return [] }
        var stored: [ObjectID: Int64] = [:]
        for (entityName, keys) in byEntity {
            let sql =
                "SELECT \(StoreSchema.primaryKeyColumn), \(StoreSchema.versionColumn) FROM \(quote(entityName)) "
                + "WHERE \(StoreSchema.primaryKeyColumn) IN (SELECT value FROM json_each(?))"
            try db.forEachRow(sql, [jsonList(keys)]) { row in
                stored[ObjectID.permanent(entityName, try row[0])] = try row[1]
            }
        }
        var conflicts: [ObjectID: MergeConflict] = [:]
        for update in changes.updated where update.changesValues && stored[update.objectID] != update.baseVersion {
            conflicts[update.objectID] = MergeConflict(
                objectID: update.objectID, snapshotVersion: update.baseVersion, currentVersion: stored[update.objectID],
                isInStore: true)
        }
        for deletion in changes.deleted {
            if let version = stored[deletion.objectID], version != deletion.baseVersion {
                conflicts[deletion.objectID] = MergeConflict(
                    objectID: deletion.objectID, snapshotVersion: deletion.baseVersion, currentVersion: version,
                    isInStore: true)
            }
        }
        let sorted = conflicts.values.sorted { $0.objectID < $1.objectID }
        guard !conflicts.isEmpty else { return [] }
        let policy = changes.mergePolicy
        if policy == .error {
            throw StoreError.mergeConflict(sorted, saving: "the root context", into: "the store")
        }
        let current = try snapshots(of: sorted.filter { !$0.wasDeleted }.map(\.objectID), resolved: resolved, db)
        changes.updated = changes.updated.compactMap { update in
            guard let conflict = conflicts[update.objectID] else { return update }
            let snapshot = current[update.objectID]
            return ObjectContext.resolve(
                update, conflict, policy, current: { index in snapshot?.attributes[index] ?? nil },
                currentToOne: { index in snapshot?.toOne[index] ?? nil })
        }
        if policy != .objectTrump {
            changes.deleted.removeAll { conflicts[$0.objectID] != nil }
        }
        return sorted
    }

    /// The stored rows of `ids`, read on the writer inside the save's transaction.
    private static func snapshots(
        of ids: [ObjectID], resolved: ResolvedModel, _ db: SQLiteConnection
    ) throws
        -> [ObjectID: Snapshot]
    {
        var result: [ObjectID: Snapshot] = [:]
        for (entityName, group) in Dictionary(grouping: ids, by: \.entityName) {
            let entity = resolved.entity(entityName)
            let sql =
                "SELECT \(columns(of: entity, alias: nil)) FROM \(quote(entity.name)) "
                + "WHERE \(StoreSchema.primaryKeyColumn) IN (SELECT value FROM json_each(?))"
            try db.forEachRow(sql, [jsonList(group.map(primaryKey))]) { row in
                let (id, snapshot) = try decode(row, entity: entity)
                result[id] = snapshot
            }
        }
        return result
    }

    private func highestKeys(for entityNames: Set<String>) -> [(String, Int64)] {
        entityNames.sorted().map { name in (name, highestPrimaryKey(name)) }
    }

    /// Runs `body`, turning a uniqueness failure into a ``StoreError`` that names the object.
    private static func guarded(_ id: ObjectID, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as SQLiteError where error.code == .constraintUnique || error.code == .constraintPrimaryKey {
            throw StoreError(
                code: .uniquenessViolation,
                message: "saving \(id) would break a uniqueness constraint (\(error.message))",
                entityName: id.entityName, objectID: id, underlying: error)
        }
    }

    /// A JSON array of keys, for `json_each`.
    static func jsonList(_ keys: [Int64]) -> String {
        "[" + keys.map(String.init).joined(separator: ",") + "]"
    }

    static func primaryKey(_ id: ObjectID) -> Int64 {
        guard let key = id.primaryKey else {
            preconditionFailure("\(id) reached the store with a temporary ID; the root context must make IDs permanent first")
        }
        return key
    }

    /// The stored form of a reference: `NULL` for a temporary ID, which names an object that
    /// was never saved (inserted and deleted again, or saved elsewhere after the reference was made).
    private static func reference(_ id: ObjectID?) -> SQLiteValue {
        guard let key = id?.primaryKey else { return .null }
        return .integer(key)
    }

    private static func delete(_ id: ObjectID, entity: Entity, _ db: SQLiteConnection) throws {
        let key = primaryKey(id)
        try db.execute("DELETE FROM \(quote(entity.name)) WHERE \(StoreSchema.primaryKeyColumn) = ?", [key])
        for join in entity.joinColumns {
            try db.execute("DELETE FROM \(quote(join.table)) WHERE \(join.column) = ?", [key])
        }
    }

    private static func update(_ update: ChangeSet.Update, entity: Entity, _ db: SQLiteConnection) throws {
        let key = primaryKey(update.objectID)
        var assignments: [String] = []
        var values: [SQLiteValue] = []
        for (index, value) in update.attributes.sorted(by: { $0.key < $1.key }) {
            assignments.append("\(quote(entity.attributes[index].name)) = ?")
            values.append(value?.sqliteValue ?? .null)
        }
        for (index, value) in update.toOne.sorted(by: { $0.key < $1.key }) {
            assignments.append("\(quote(entity.toOneRelationships[index].name)) = ?")
            values.append(reference(value))
        }
        if update.changesValues {
            assignments.append("\(StoreSchema.versionColumn) = ?")
            values.append(.integer(update.version))
        }
        if !assignments.isEmpty {
            try db.execute(
                "UPDATE \(quote(entity.name)) SET \(assignments.joined(separator: ", ")) WHERE \(StoreSchema.primaryKeyColumn) = ?",
                SQLiteArguments(values + [.integer(key)]))
        }
        for relationship in entity.toManyRelationships {
            guard let delta = update.toMany[relationship.name], case .joinTable(let join) = relationship.storage, join.isOwner
            else { continue }
            for removed in delta.removed.compactMap(\.primaryKey) {
                try db.execute("DELETE FROM \(quote(join.table)) WHERE Z_SOURCE = ? AND Z_TARGET = ?", [key, removed])
            }
            for added in delta.added.compactMap(\.primaryKey) {
                try db.execute("INSERT OR IGNORE INTO \(quote(join.table)) (Z_SOURCE, Z_TARGET) VALUES (?, ?)", [key, added])
            }
        }
    }

    /// The `INSERT` statement of an entity's rows, with a placeholder per selected column.
    private static func insertSQL(_ entity: Entity) -> String {
        let columnCount = 2 + entity.attributes.count + entity.toOneRelationships.count
        let placeholders = Array(repeating: "?", count: columnCount).joined(separator: ", ")
        return "INSERT INTO \(quote(entity.name)) (\(columns(of: entity, alias: nil))) VALUES (\(placeholders))"
    }

    private static func insert(
        _ insertion: ChangeSet.Insertion, entity: Entity, statement: SQLiteStatement, _ db: SQLiteConnection
    ) throws {
        let key = primaryKey(insertion.objectID)
        try statement.bind(SQLiteValue.integer(key), at: 1)
        var position = 2
        for value in insertion.snapshot.attributes {
            try statement.bind(value?.sqliteValue ?? .null, at: position)
            position += 1
        }
        for related in insertion.snapshot.toOne {
            try statement.bind(reference(related), at: position)
            position += 1
        }
        try statement.bind(SQLiteValue.integer(max(insertion.snapshot.version, 1)), at: position)
        try statement.execute()
        for relationship in entity.toManyRelationships {
            guard let members = insertion.toMany[relationship.name], case .joinTable(let join) = relationship.storage,
                join.isOwner
            else { continue }
            for member in members.compactMap(\.primaryKey) {
                try db.execute("INSERT OR IGNORE INTO \(quote(join.table)) (Z_SOURCE, Z_TARGET) VALUES (?, ?)", [key, member])
            }
        }
    }
}
