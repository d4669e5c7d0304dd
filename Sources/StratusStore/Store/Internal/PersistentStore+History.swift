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
    /// A `Z_CHANGE` row covers a run of consecutive primary keys of one entity with the same
    /// kind of change and changed keys, so a bulk insertion records a handful of rows, not one per object.
    ///
    /// - Returns: The token of the last transaction written, or `nil` if there were no changes.
    static func recordHistory(
        _ changes: ChangeSet, resolved: ResolvedModel, date: Date, _ db: SQLiteConnection
    ) throws
        -> HistoryToken?
    {
        var byAuthor: [String?: [PendingChange]] = [:]
        for deletion in changes.deleted {
            byAuthor[deletion.author, default: []].append(PendingChange(objectID: deletion.objectID, type: .deleted, keys: []))
        }
        // An update is one change per author of its keys; so are the keys another author changed on an insertion.
        func recordUpdates(of id: ObjectID, byKey authors: [String: String?]) {
            var keysByAuthor: [String?: [String]] = [:]
            for (key, author) in authors {
                keysByAuthor[author, default: []].append(key)
            }
            for (author, keys) in keysByAuthor {
                byAuthor[author, default: []].append(PendingChange(objectID: id, type: .updated, keys: keys.sorted()))
            }
        }
        for update in changes.updated where !update.isEmpty {
            recordUpdates(of: update.objectID, byKey: update.authors)
        }
        for insertion in changes.inserted {
            byAuthor[insertion.author, default: []].append(
                PendingChange(objectID: insertion.objectID, type: .inserted, keys: []))
            recordUpdates(of: insertion.objectID, byKey: insertion.laterAuthors)
        }
        var token: HistoryToken?
        let timestamp = date.timeIntervalSince1970
        for (author, entries) in byAuthor.sorted(by: { ($0.key ?? "") < ($1.key ?? "") }) {
            try db.execute(
                "INSERT INTO \(StoreSchema.transactionTable) (Z_AUTHOR, Z_TIMESTAMP) VALUES (?, ?)", [author, timestamp])
            let transaction = db.lastInsertRowID
            for run in runs(of: entries) {
                try db.execute(
                    "INSERT INTO \(StoreSchema.changeTable) (Z_TRANSACTION, Z_ENTITY, Z_ENTITYPK, Z_LASTPK, Z_TYPE, Z_KEYS) "
                        + "VALUES (?, ?, ?, ?, ?, ?)",
                    binding: transaction, run.entity, run.first, run.last, run.type.rawValue, run.keys)
            }
            token = HistoryToken(rawValue: transaction)
        }
        return token
    }

    private struct Run {
        var entity: String
        var type: ChangeType
        var keys: String?
        var first: Int64
        var last: Int64
    }

    /// The entries grouped by entity, kind and keys, as runs of consecutive primary keys.
    private static func runs(of entries: [PendingChange]) -> [Run] {
        struct Group: Hashable {
            var entity: String
            var type: Int64
            var keys: [String]
        }
        var groups: [Group: [Int64]] = [:]
        var order: [Group] = []
        for entry in entries {
            guard let key = entry.objectID.primaryKey else { continue }
            let group = Group(entity: entry.objectID.entityName, type: entry.type.rawValue, keys: entry.keys)
            if groups[group] == nil { order.append(group) }
            groups[group, default: []].append(key)
        }
        var runs: [Run] = []
        for group in order {
            guard let type = ChangeType(rawValue: group.type) else { continue }
            let keys = group.keys.isEmpty ? nil : group.keys.joined(separator: ",")
            var current: Run?
            for key in (groups[group] ?? []).sorted() {
                if let run = current, key == run.last + 1 {
                    current?.last = key
                } else {
                    if let run = current { runs.append(run) }
                    current = Run(entity: group.entity, type: type, keys: keys, first: key, last: key)
                }
            }
            if let run = current { runs.append(run) }
        }
        return runs
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
                    "SELECT Z_TRANSACTION, Z_ENTITY, Z_ENTITYPK, Z_LASTPK, Z_TYPE, Z_KEYS FROM \(StoreSchema.changeTable) "
                        + "WHERE Z_TRANSACTION > ? ORDER BY Z_PK",
                    [after]
                ) { row in
                    let number: Int64 = try row[0]
                    guard let index = indexByToken[number] else { return }
                    let entity: String = try row[1]
                    let first: Int64 = try row[2]
                    let last: Int64 = try row[3]
                    let typeValue: Int64 = try row[4]
                    let keys: String? = try row[5]
                    let kind = ChangeType(rawValue: typeValue)?.kind ?? .updated
                    let changedKeys = Set(keys.map { $0.split(separator: ",").map(String.init) } ?? [])
                    for key in first...max(first, last) {
                        transactions[index].changes.append(
                            HistoryChange(objectID: ObjectID.permanent(entity, key), kind: kind, changedKeys: changedKeys))
                    }
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
                let newest =
                    try db.fetchOne(
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
