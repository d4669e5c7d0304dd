import StratusPostgres
import StratusServer
import StratusWire

/// The order of a plan PostgreSQL can produce itself, so a page reads about `limit` rows
/// instead of every candidate: no sort (zone, then record name — the order of
/// `records_by_type_bytewise`), one sort on a system column (record name, creation or
/// modification time or user), or one sort on a record field of an indexed kind (its first
/// value in `field_index`, missing values first). Ties break on zone and record name in the
/// sort's direction, text compares by code point (`COLLATE "C"`), exactly as
/// ``PostgresQueryEvaluator`` orders in memory; other plans (several sorts, distance, bytes)
/// are sorted in memory.
struct PostgresQueryKeyset {
    /// What is sorted on: nothing (the default order), a system column, or a field's first index value.
    enum Key {
        case none
        case system(SystemFieldName, column: String)
        case field(name: String, kind: PostgresCandidateSQL.Kind)
    }

    let key: Key
    let ascending: Bool

    init?(plan: QueryPlan) {
        switch plan.sorts.count {
        case 0:
            (key, ascending) = (.none, true)
        case 1:
            let sort = plan.sorts[0]
            guard sort.relativeLocation == nil else { return nil }
            switch sort.field {
            case .system(let system):
                switch system {
                case .recordName: key = .system(system, column: "r.record_name COLLATE \"C\"")
                case .createdTimestamp: key = .system(system, column: "r.created_at")
                case .modifiedTimestamp: key = .system(system, column: "r.modified_at")
                case .createdUserRecordName: key = .system(system, column: "r.created_by COLLATE \"C\"")
                case .modifiedUserRecordName: key = .system(system, column: "r.modified_by COLLATE \"C\"")
                case .share, .parent: return nil
                }
                // A system value is never missing: a cursor without one is left to the in-memory path.
                if let after = plan.after, (after.sortValues.first ?? nil) == nil { return nil }
            case .field(let name, let type):
                guard let kind = PostgresCandidateSQL.Kind(type) else { return nil }
                if let value = plan.after?.sortValues.first ?? nil, PostgresCandidateSQL.Kind(value) != kind { return nil }
                key = .field(name: name, kind: kind)
            }
            ascending = sort.ascending
        default:
            return nil
        }
    }

    /// Where a page or a chunk of candidates ended.
    struct Position {
        var value: QueryCursorValue?
        var zoneRowID: Int64
        var recordName: String
    }

    /// The position of a plan's cursor.
    func position(of cursor: QueryCursor) -> Position {
        if case .none = key { return Position(value: nil, zoneRowID: cursor.zoneRowID, recordName: cursor.recordName) }
        return Position(value: cursor.sortValues.first ?? nil, zoneRowID: cursor.zoneRowID, recordName: cursor.recordName)
    }

    /// The position of a record in this order (its sort value as the evaluator computes it).
    func position(of record: StoredRecord) -> Position {
        let value: QueryCursorValue?
        switch key {
        case .none: value = nil
        case .system(let system, _): value = PostgresQueryEvaluator.systemValue(system, record)
        case .field(let name, _): value = record.fields[name].flatMap { PostgresQueryEvaluator.indexValues($0).first }
        }
        return Position(value: value, zoneRowID: record.zoneRowID, recordName: record.recordName)
    }

    /// Adds "after `position`" (if any), the order and the limit to the candidate query.
    func restrict(_ candidates: inout PostgresCandidateSQL, singleZone: Int64?, after position: Position?, limit: Int) {
        let operation = ascending ? ">" : "<"
        let direction = ascending ? "ASC" : "DESC"
        // With one zone, an equality lets PostgreSQL read the index in order instead of sorting.
        if let singleZone { candidates.append(" AND r.zone_id = \(candidates.bind(singleZone))") }
        let sorted: (expression: String, nullable: Bool)?
        switch key {
        case .none: sorted = nil
        case .system(_, let column): sorted = (column, false)
        case .field(let name, let kind):
            let column = "f.\(kind.column)"
            sorted = (
                "(SELECT \(column) FROM field_index f WHERE f.zone_id = r.zone_id AND f.record_name = r.record_name"
                    + " AND f.field_name = \(candidates.bind(name)) AND \(column) IS NOT NULL ORDER BY f.ordinal LIMIT 1)",
                true
            )
        }
        if let position {
            let zone = candidates.bind(position.zoneRowID)
            let name = candidates.bind(position.recordName)
            var after = "(r.zone_id \(operation) \(zone) OR (r.zone_id = \(zone) AND r.record_name COLLATE \"C\" \(operation) \(name)))"
            if let (expression, nullable) = sorted {
                // Missing values come first ascending, last descending (as NULLS FIRST / NULLS LAST below).
                switch (position.value, ascending) {
                case (let value?, true):
                    let bound = candidates.bind(Self.bindable(value))
                    after = "(\(expression) > \(bound) OR (\(expression) = \(bound) AND \(after)))"
                case (let value?, false):
                    let bound = candidates.bind(Self.bindable(value))
                    let missing = nullable ? " OR \(expression) IS NULL" : ""
                    after = "(\(expression) < \(bound)\(missing) OR (\(expression) = \(bound) AND \(after)))"
                case (nil, true):
                    after = "((\(expression) IS NULL AND \(after)) OR \(expression) IS NOT NULL)"
                case (nil, false):
                    after = "(\(expression) IS NULL AND \(after))"
                }
            }
            candidates.append(" AND " + after)
        }
        let nulls = ascending ? " NULLS FIRST" : " NULLS LAST"
        let order = (sorted.map { ["\($0.expression) \(direction)\(nulls)"] } ?? []) + ["r.zone_id \(direction)", "r.record_name COLLATE \"C\" \(direction)"]
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
