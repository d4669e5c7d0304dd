import Foundation
import StratusSQLite

extension PersistentStore {
    private enum ChangeType: Int64 {
        case inserted = 0
        case updated = 1
        case deleted = 2

        var kind: HistoryChange.Kind {
            switch self {
            case .inserted: .inserted
            case .updated: .updated
            case .deleted: .deleted
            }
        }
    }

    private struct PendingChange {
        var objectID: ObjectID
        var type: ChangeType
        var keys: [String]
    }

    /// Records the history of a root save: one transaction per author. Runs inside the save's transaction.
    ///
    /// - Returns: The token of the last transaction written, or `nil` if there were no changes.
    static func recordHistory(_ changes: ChangeSet, resolved: ResolvedModel, date: Date, _ db: SQLiteConnection) throws
        -> HistoryToken?
    {
        var byAuthor: [String?: [PendingChange]] = [:]
        for deletion in changes.deleted {
            byAuthor[deletion.author, default: []].append(PendingChange(objectID: deletion.objectID, type: .deleted, keys: []))
        }
        for update in changes.updated where !update.isEmpty {
            var keysByAuthor: [String?: [String]] = [:]
            for (key, author) in update.authors {
                keysByAuthor[author, default: []].append(key)
            }
            for (author, keys) in keysByAuthor {
                byAuthor[author, default: []].append(
                    PendingChange(objectID: update.objectID, type: .updated, keys: keys.sorted()))
            }
        }
        for insertion in changes.inserted {
            byAuthor[insertion.author, default: []].append(
                PendingChange(objectID: insertion.objectID, type: .inserted, keys: []))
        }
        var token: HistoryToken?
        let timestamp = date.timeIntervalSince1970
        for (author, entries) in byAuthor.sorted(by: { ($0.key ?? "") < ($1.key ?? "") }) {
            try db.execute(
                "INSERT INTO \(StoreSchema.transactionTable) (Z_AUTHOR, Z_TIMESTAMP) VALUES (?, ?)", [author, timestamp])
            let transaction = db.lastInsertRowID
            for entry in entries {
                guard let key = entry.objectID.primaryKey else { continue }
                try db.execute(
                    "INSERT INTO \(StoreSchema.changeTable) (Z_TRANSACTION, Z_ENTITY, Z_ENTITYPK, Z_TYPE, Z_KEYS) "
                        + "VALUES (?, ?, ?, ?, ?)",
                    binding: transaction, entry.objectID.entityName, key, entry.type.rawValue,
                    entry.keys.isEmpty ? nil : entry.keys.joined(separator: ","))
            }
            token = HistoryToken(rawValue: transaction)
        }
        return token
    }

    /// The transactions after `token` (all kept transactions for `nil`), oldest first.
    ///
    /// - Throws: ``StoreError/Code/historyExpired`` if transactions after `token` were pruned.
    func history(after token: HistoryToken?) throws -> [HistoryTransaction] {
        do {
            return try database.readSync { db in
                let after = token?.rawValue ?? 0
                let prunedThrough = try Self.prunedThrough(db)
                if let token, token.rawValue < prunedThrough {
                    throw StoreError(
                        code: .historyExpired,
                        message: "the history after \(token) was pruned (through history#\(prunedThrough)); "
                            + "start over from the current state")
                }
                var transactions: [HistoryTransaction] = []
                var indexByToken: [Int64: Int] = [:]
                try db.forEachRow(
                    "SELECT Z_PK, Z_AUTHOR, Z_TIMESTAMP FROM \(StoreSchema.transactionTable) WHERE Z_PK > ? ORDER BY Z_PK",
                    [after]
                ) { row in
                    let number: Int64 = try row[0]
                    indexByToken[number] = transactions.count
                    transactions.append(
                        HistoryTransaction(
                            token: HistoryToken(rawValue: number), author: try row[1],
                            timestamp: Date(timeIntervalSince1970: try row[2]), changes: []))
                }
                try db.forEachRow(
                    "SELECT Z_TRANSACTION, Z_ENTITY, Z_ENTITYPK, Z_TYPE, Z_KEYS FROM \(StoreSchema.changeTable) "
                        + "WHERE Z_TRANSACTION > ? ORDER BY Z_PK",
                    [after]
                ) { row in
                    let number: Int64 = try row[0]
                    guard let index = indexByToken[number] else { return }
                    let typeValue: Int64 = try row[3]
                    let keys: String? = try row[4]
                    transactions[index].changes.append(
                        HistoryChange(
                            objectID: ObjectID.permanent(try row[1], try row[2]),
                            kind: ChangeType(rawValue: typeValue)?.kind ?? .updated,
                            changedKeys: Set(keys.map { $0.split(separator: ",").map(String.init) } ?? [])))
                }
                return transactions
            }
        } catch {
            throw StoreError.wrapping(error, "could not read the history of \(url.path)")
        }
    }

    /// The token of the newest transaction, or `nil` if none was ever recorded.
    func lastHistoryToken() throws -> HistoryToken? {
        do {
            return try database.readSync { db in
                let kept = try db.fetchOne(Int64?.self, "SELECT max(Z_PK) FROM \(StoreSchema.transactionTable)") ?? nil
                let pruned = try Self.prunedThrough(db)
                let newest = max(kept ?? 0, pruned)
                return newest > 0 ? HistoryToken(rawValue: newest) : nil
            }
        } catch {
            throw StoreError.wrapping(error, "could not read the history of \(url.path)")
        }
    }

    /// Deletes the transactions up to and including `token`.
    func pruneHistory(through token: HistoryToken) throws {
        try prune(where: "Z_PK <= ?", token.rawValue)
    }

    /// Deletes the transactions older than `date`.
    func pruneHistory(before date: Date) throws {
        try prune(where: "Z_TIMESTAMP < ?", date.timeIntervalSince1970)
    }

    private func prune(where condition: String, _ value: some SQLiteValueConvertible) throws {
        do {
            try database.writeSync { db in
                let newest = try db.fetchOne(
                    Int64?.self, "SELECT max(Z_PK) FROM \(StoreSchema.transactionTable) WHERE \(condition)", [value]) ?? nil
                guard let newest else { return }
                try db.execute(
                    "DELETE FROM \(StoreSchema.changeTable) WHERE Z_TRANSACTION <= ?", [newest])
                try db.execute("DELETE FROM \(StoreSchema.transactionTable) WHERE Z_PK <= ?", [newest])
                try db.execute(
                    "INSERT INTO \(StoreSchema.metadataTable) (Z_KEY, Z_VALUE) VALUES ('historyPrunedThrough', ?) "
                        + "ON CONFLICT (Z_KEY) DO UPDATE SET Z_VALUE = max(CAST(Z_VALUE AS INTEGER), CAST(excluded.Z_VALUE AS INTEGER))",
                    [String(newest)])
            }
        } catch {
            throw StoreError.wrapping(error, "could not prune the history of \(url.path)")
        }
    }

    private static func prunedThrough(_ db: SQLiteConnection) throws -> Int64 {
        let value = try db.fetchOne(
            String.self, "SELECT Z_VALUE FROM \(StoreSchema.metadataTable) WHERE Z_KEY = 'historyPrunedThrough'")
        return value.flatMap { Int64($0) } ?? 0
    }
}
