import StratusSQLite

/// A fetch compiled to SQL against one entity's table (aliased `t0`), with joins for key paths.
struct StoreQuery: Sendable {
    var entity: Entity
    /// `LEFT JOIN` clauses for to-one key paths.
    var joins: [String] = []
    /// The `WHERE` condition, or `nil` for every row.
    var condition: String?
    /// `ORDER BY` terms; the primary key is always appended as the last tie-breaker.
    var orderBy: [String] = []
    var limit: Int?
    var offset: Int?
    var arguments: [SQLiteValue] = []

    /// Everything after the `SELECT` list.
    var fromWhereOrderSQL: String {
        var sql = "FROM \(quote(entity.name)) AS t0"
        for join in joins {
            sql += " " + join
        }
        if let condition {
            sql += " WHERE " + condition
        }
        sql += " ORDER BY " + (orderBy + ["t0.\(StoreSchema.primaryKeyColumn)"]).joined(separator: ", ")
        if let limit {
            sql += " LIMIT \(max(limit, 0))"
            if let offset, offset > 0 {
                sql += " OFFSET \(offset)"
            }
        } else if let offset, offset > 0 {
            sql += " LIMIT -1 OFFSET \(offset)"
        }
        return sql
    }
}
