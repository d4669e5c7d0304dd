import Foundation
import StratusSQLite

extension PersistentStore {
    /// Writes a root context's changes in one transaction: deletions, then updates, then insertions.
    ///
    /// Either every change is stored or, if anything fails, none.
    ///
    /// - Throws: ``StoreError`` with ``StoreError/Code/uniquenessViolation`` naming the object
    ///   that broke a constraint, or ``StoreError/Code/sqlite``.
    func save(_ changes: ChangeSet) throws {
        let resolved = self.resolved
        let highest = highestKeys(for: Set(changes.inserted.map(\.objectID.entityName)))
        do {
            try database.writeSync { db in
                for id in changes.deleted {
                    try Self.delete(id, entity: resolved.entity(id.entityName), db)
                }
                for update in changes.updated {
                    try Self.guarded(update.objectID) {
                        try Self.update(update, entity: resolved.entity(update.objectID.entityName), db)
                    }
                }
                for insertion in changes.inserted {
                    try Self.guarded(insertion.objectID) {
                        try Self.insert(insertion, entity: resolved.entity(insertion.objectID.entityName), db)
                    }
                }
                for (entityName, key) in highest {
                    try db.execute(
                        "INSERT INTO \(StoreSchema.primaryKeyTable) (Z_ENTITY, Z_MAX) VALUES (?, ?) "
                            + "ON CONFLICT (Z_ENTITY) DO UPDATE SET Z_MAX = max(Z_MAX, excluded.Z_MAX)",
                        [entityName, key])
                }
            }
        } catch {
            throw StoreError.wrapping(error, "could not save to \(url.path)")
        }
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

    private static func primaryKey(_ id: ObjectID) -> Int64 {
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

    private static func insert(_ insertion: ChangeSet.Insertion, entity: Entity, _ db: SQLiteConnection) throws {
        let key = primaryKey(insertion.objectID)
        let columnCount = 1 + entity.attributes.count + entity.toOneRelationships.count
        let placeholders = Array(repeating: "?", count: columnCount).joined(separator: ", ")
        var values: [SQLiteValue] = [.integer(key)]
        values.reserveCapacity(columnCount)
        values += insertion.snapshot.attributes.map { $0?.sqliteValue ?? .null }
        values += insertion.snapshot.toOne.map(reference)
        try db.execute(
            "INSERT INTO \(quote(entity.name)) (\(columns(of: entity, alias: nil))) VALUES (\(placeholders))",
            SQLiteArguments(values))
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
