import StratusServer
import StratusSQLite

/// Translates a ``QueryPlan`` into SQL on the records table and runs it.
struct SQLiteQueryCompiler {
    let plan: QueryPlan

    func run(_ db: SQLiteConnection) throws -> [StoredRecord] {
        guard !plan.zoneRowIDs.isEmpty else { return [] }
        var sql = "SELECT zone_id, record_name, record_type, change_tag, seq, deleted, fields, created_at, created_by, created_device, modified_at, modified_by, modified_device FROM records"
        var arguments: [any SQLiteValueConvertible] = plan.zoneRowIDs
        sql += " WHERE zone_id IN (\(Array(repeating: "?", count: plan.zoneRowIDs.count).joined(separator: ", "))) AND record_type = ? AND deleted = 0"
        arguments.append(plan.recordType)
        if let after = plan.after {
            sql += " AND (zone_id, record_name) > (?, ?)"
            arguments += [after.zoneRowID, after.recordName]
        }
        sql += " ORDER BY zone_id, record_name LIMIT ?"
        arguments.append(plan.limit)
        return try db.fetchAll(sql, SQLiteArguments(arguments), SQLiteStoreTransaction.record)
    }
}
