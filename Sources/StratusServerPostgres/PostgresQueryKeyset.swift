import StratusPostgres
import StratusServer
import StratusWire

/// The order of a plan PostgreSQL can produce itself, so a page reads about `limit` rows
/// instead of every candidate: no sort (zone, then record name — the order of
/// `records_by_type_bytewise`), or one sort on a system column (record name, creation or
/// modification time or user). Ties break on zone and record name in the sort's direction,
/// text compares by code point (`COLLATE "C"`), exactly as ``PostgresQueryEvaluator`` orders
/// in memory; other plans (field sorts, several sorts, distance) are sorted in memory.
struct PostgresQueryKeyset {
    /// The sorted column, `nil` for the default order.
    let column: String?
    /// The system field behind ``column``.
    let system: SystemFieldName?
    let ascending: Bool

    init?(plan: QueryPlan) {
        switch plan.sorts.count {
        case 0:
            (column, system, ascending) = (nil, nil, true)
        case 1:
            let sort = plan.sorts[0]
            guard case .system(let system) = sort.field, sort.relativeLocation == nil else { return nil }
            switch system {
            case .recordName: column = "r.record_name COLLATE \"C\""
            case .createdTimestamp: column = "r.created_at"
            case .modifiedTimestamp: column = "r.modified_at"
            case .createdUserRecordName: column = "r.created_by COLLATE \"C\""
            case .modifiedUserRecordName: column = "r.modified_by COLLATE \"C\""
            case .share, .parent: return nil
            }
            self.system = system
            ascending = sort.ascending
        default:
            return nil
        }
        // A cursor of another shape (no value for the sorted column) is left to the in-memory path.
        if let after = plan.after, system != nil, (after.sortValues.first ?? nil) == nil { return nil }
    }

    /// Where a page or a chunk of candidates ended.
    struct Position {
        var value: QueryCursorValue?
        var zoneRowID: Int64
        var recordName: String
    }

    /// The position of a plan's cursor.
    func position(of cursor: QueryCursor) -> Position {
        Position(value: system == nil ? nil : cursor.sortValues.first ?? nil, zoneRowID: cursor.zoneRowID, recordName: cursor.recordName)
    }

    /// The position of a record in this order.
    func position(of record: StoredRecord) -> Position {
        Position(value: system.flatMap { PostgresQueryEvaluator.systemValue($0, record) }, zoneRowID: record.zoneRowID, recordName: record.recordName)
    }

    /// Adds "after `position`" (if any), the order and the limit to the candidate query.
    func restrict(_ candidates: inout PostgresCandidateSQL, singleZone: Int64?, after position: Position?, limit: Int) {
        let operation = ascending ? ">" : "<"
        let direction = ascending ? "ASC" : "DESC"
        // With one zone, an equality lets PostgreSQL read the index in order instead of sorting.
        if let singleZone { candidates.append(" AND r.zone_id = \(candidates.bind(singleZone))") }
        if let position {
            let zone = candidates.bind(position.zoneRowID)
            let name = candidates.bind(position.recordName)
            var after = "(r.zone_id \(operation) \(zone) OR (r.zone_id = \(zone) AND r.record_name COLLATE \"C\" \(operation) \(name)))"
            if let column, let value = position.value {
                let bound = candidates.bind(Self.bindable(value))
                after = "(\(column) \(operation) \(bound) OR (\(column) = \(bound) AND \(after)))"
            }
            candidates.append(" AND " + after)
        }
        let order = (column.map { ["\($0) \(direction)"] } ?? []) + ["r.zone_id \(direction)", "r.record_name COLLATE \"C\" \(direction)"]
        candidates.append(" ORDER BY " + order.joined(separator: ", ") + " LIMIT \(candidates.bind(limit))")
    }

    private static func bindable(_ value: QueryCursorValue) -> any PostgresBindable {
        switch value {
        case .integer(let integer): integer
        case .real(let real): real
        case .text(let text): text
        case .bytes(let data): data
        }
    }

    static func registerIndex(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v7-records-by-type-bytewise") { db in
            try db.execute(
                "CREATE INDEX records_by_type_bytewise ON records (zone_id, record_type, record_name COLLATE \"C\") WHERE NOT deleted"
            )
        }
    }
}
