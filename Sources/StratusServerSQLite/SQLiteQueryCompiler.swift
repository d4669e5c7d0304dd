import StratusServer
import StratusSQLite
import StratusWire

/// Translates a ``QueryPlan`` into one SQL statement on the query index and runs it.
///
/// Two shapes, chosen per query:
///
/// - **Scan in order.** Walk the index that already has the sort order — the
///   first sort field's rows of `field_index` (`field_index_values`), or the
///   `records` index of a system field, or `records_by_type` for the default
///   order — and test each record's filters with primary-key lookups, stopping
///   after `limit + 1` matches. Cheap when the filters keep many records.
/// - **Drive from a filter.** Start from the index range of the most selective
///   positive filter, test the other filters, and sort the few candidates.
///   Cheap when a filter keeps few records.
///
/// To choose, the compiler counts the candidates of each positive filter up to
/// ``driverThreshold`` (an index-only scan); a filter with fewer drives, else the
/// scan does. A filter with no candidates at all ends the query at once.
///
/// Paging is by keyset: the statement returns the sort keys of each row, and
/// `plan.after` becomes a `WHERE` that starts strictly after the last row's keys
/// (sort keys, then zone row and record name), with a redundant range on the
/// first key so the scan seeks instead of skipping.
struct SQLiteQueryCompiler {
    let plan: QueryPlan

    /// A filter that keeps fewer candidates than this drives the query.
    static let driverThreshold = 2000

    /// The record columns, in the order ``SQLiteStoreTransaction/record(_:)`` reads them.
    static let recordColumns =
        "r.zone_id, r.record_name, r.record_type, r.change_tag, r.seq, r.deleted, r.fields, r.created_at, r.created_by, r.created_device, r.modified_at, r.modified_by, r.modified_device"
    private static let keyColumn = 13

    /// How the statement finds its rows.
    enum Strategy {
        /// Scan the sort order's index.
        case scan
        /// Start from a filter's candidates.
        case drive(SQLiteQueryFilter.Driver)
        /// A filter keeps nothing: no statement needed.
        case empty
    }

    func run(_ db: SQLiteConnection) throws -> QueryPage {
        guard !plan.zoneRowIDs.isEmpty, plan.limit > 0 else { return QueryPage(records: [], next: nil) }
        let filters = plan.filters.map { SQLiteQueryFilter($0, plan: plan) }
        let strategy = try choose(filters, db)
        if case .empty = strategy { return QueryPage(records: [], next: nil) }
        let statement = select(filters, strategy)
        let sortCount = plan.sorts.count
        var rows = try db.fetchAll(statement.sql, SQLiteArguments(statement.arguments)) { row in
            let record = try SQLiteStoreTransaction.record(row)
            let keys = (0..<sortCount).map { Self.cursorValue(row.value(at: Self.keyColumn + $0)) }
            return (record, keys)
        }
        var next: QueryCursor?
        if rows.count > plan.limit {
            rows.removeLast(rows.count - plan.limit)
            if let (last, keys) = rows.last {
                next = QueryCursor(sortValues: keys, zoneRowID: last.zoneRowID, recordName: last.recordName)
            }
        }
        return QueryPage(records: rows.map(\.0), next: next)
    }

    // MARK: Strategy

    /// Counts the candidates of every driver (up to the threshold) and picks the smallest.
    func choose(_ filters: [SQLiteQueryFilter], _ db: SQLiteConnection) throws -> Strategy {
        var best: (count: Int, driver: SQLiteQueryFilter.Driver)?
        for driver in filters.flatMap(\.drivers) {
            let counting = SQLFragment("SELECT count(*) FROM (") + driver.select
                + SQLFragment(" LIMIT ?)", [.integer(Int64(Self.driverThreshold))])
            let count = try db.fetchOne(Int.self, counting.sql, SQLiteArguments(counting.arguments)) ?? 0
            if count == 0 { return .empty }
            if count < best?.count ?? Int.max { best = (count, driver) }
            if count < 64 { break }
        }
        guard let best else { return .scan }
        // No index yields distance order, so a distance sort always sorts its candidates: the fewer the better.
        if best.count < Self.driverThreshold || isDistanceFirst { return .drive(best.driver) }
        return .scan
    }

    private var isDistanceFirst: Bool { plan.sorts.first?.relativeLocation != nil }

    // MARK: Statement

    /// One sort key: its expression, direction and whether it can be NULL.
    struct SortKey {
        var expression: SQLFragment
        var ascending: Bool
        var nullable: Bool
    }

    /// The full statement for a strategy (also used by tests to check the query plan).
    func select(_ filters: [SQLiteQueryFilter], _ strategy: Strategy) -> SQLFragment {
        let joinsFirstSort: Bool
        if case .scan = strategy, let first = plan.sorts.first, case .field = first.field {
            joinsFirstSort = true
        } else {
            joinsFirstSort = false
        }
        let keys = plan.sorts.enumerated().map { index, sort in sortKey(sort, joined: index == 0 && joinsFirstSort) }
        let ascending = plan.sorts.first?.ascending ?? true
        let tieAlias = joinsFirstSort ? "s0" : "r"
        let ties = [
            SortKey(expression: SQLFragment(tieAlias + ".zone_id"), ascending: ascending, nullable: false),
            SortKey(expression: SQLFragment(tieAlias + ".record_name"), ascending: ascending, nullable: false),
        ]

        var statement = SQLFragment("SELECT " + Self.recordColumns)
        for key in keys { statement.append(SQLFragment(", ") + key.expression) }
        switch strategy {
        case .drive(let driver):
            statement.append(SQLFragment(driver.mayRepeat ? " FROM (SELECT DISTINCT zone_id, record_name FROM (" : " FROM (") + driver.select)
            statement.append(driver.mayRepeat ? ")) d" : ") d")
            statement.append(" CROSS JOIN records r WHERE r.zone_id = d.zone_id AND r.record_name = d.record_name")
        case .scan where joinsFirstSort:
            guard case .field(let name, _)? = plan.sorts.first?.field else { break }
            statement.append(SQLFragment(" FROM field_index s0 CROSS JOIN records r WHERE ") + .zones("s0.zone_id", plan.zoneRowIDs))
            statement.append(" AND s0.record_type = ? AND s0.field_name = ? AND s0.ordinal = 0", .text(plan.recordType), .text(name))
            statement.append(" AND r.zone_id = s0.zone_id AND r.record_name = s0.record_name")
        case .scan, .empty:
            statement.append(SQLFragment(" FROM records r WHERE ") + .zones("r.zone_id", plan.zoneRowIDs))
        }
        statement.append(" AND r.record_type = ? AND r.deleted = 0", .text(plan.recordType))
        for filter in filters { statement.append(SQLFragment(" AND ") + filter.check) }
        if case .scan = strategy, let first = plan.sorts.first, first.relativeLocation == nil, let key = keys.first, key.expression.arguments.isEmpty {
            // A filter on the first sort field bounds the scan of its index.
            for filter in filters {
                if let bound = filter.bound, bound.field == first.field {
                    statement.append(SQLFragment(" AND ") + bound.condition(key.expression.sql))
                }
            }
        }
        if let after = plan.after {
            statement.append(SQLFragment(" AND ") + keyset(keys + ties, after: after))
        }
        statement.append(" ORDER BY ")
        let order = keys.enumerated().map { index, key in "\(Self.keyColumn + index + 1)" + (key.ascending ? " ASC" : " DESC") }
            + ties.map { $0.expression.sql + ($0.ascending ? " ASC" : " DESC") }
        statement.append(order.joined(separator: ", "))
        statement.append(" LIMIT ?", .integer(Int64(plan.limit) + 1))
        return statement
    }

    private func sortKey(_ sort: QuerySort, joined: Bool) -> SortKey {
        switch sort.field {
        case .system(let system):
            return SortKey(expression: SQLFragment("r." + SQLiteQueryFilter.column(system)), ascending: sort.ascending, nullable: false)
        case .field(let name, _):
            let nullable = !keepsOnlyPresentValues(sort.field)
            if let point = sort.relativeLocation {
                if joined {
                    return SortKey(expression: SQLiteQueryFilter.distance("s0.v", "s0.v2", from: point), ascending: sort.ascending, nullable: true)
                }
                let expression = SQLFragment("(SELECT ") + SQLiteQueryFilter.distance("k.v", "k.v2", from: point)
                    + SQLFragment(" FROM field_index k WHERE k.zone_id = r.zone_id AND k.record_name = r.record_name AND k.field_name = ? AND k.ordinal = 0)", [.text(name)])
                return SortKey(expression: expression, ascending: sort.ascending, nullable: true)
            }
            if joined { return SortKey(expression: SQLFragment("s0.v"), ascending: sort.ascending, nullable: nullable) }
            let expression = SQLFragment(
                "(SELECT k.v FROM field_index k WHERE k.zone_id = r.zone_id AND k.record_name = r.record_name AND k.field_name = ? AND k.ordinal = 0)",
                [.text(name)]
            )
            return SortKey(expression: expression, ascending: sort.ascending, nullable: nullable)
        }
    }

    /// Whether a positive filter on `field` rules out records that lack it.
    private func keepsOnlyPresentValues(_ field: QueryField) -> Bool {
        plan.filters.contains { $0.field == field && !SQLiteQueryFilter.isNegative($0.comparator) }
    }

    // MARK: Keyset

    /// Rows strictly after the cursor in the order of `keys`; NULL sorts before every value.
    func keyset(_ keys: [SortKey], after cursor: QueryCursor) -> SQLFragment {
        var values: [SQLiteValue] = cursor.sortValues.map(Self.sqliteValue)
        values.append(.integer(cursor.zoneRowID))
        values.append(.text(cursor.recordName))
        var disjuncts: [SQLFragment] = []
        var prefix: [SQLFragment] = []
        for (key, value) in zip(keys, values) {
            let expression = key.expression
            let after: SQLFragment?
            switch (key.ascending, value.isNull) {
            case (true, true): after = expression + SQLFragment(" IS NOT NULL")
            case (true, false): after = expression + SQLFragment(" > ?", [value])
            case (false, true): after = nil  // nothing sorts below NULL
            case (false, false):
                after = key.nullable
                    ? SQLFragment("(") + expression + SQLFragment(" < ? OR ", [value]) + expression + SQLFragment(" IS NULL)")
                    : expression + SQLFragment(" < ?", [value])
            }
            if let after { disjuncts.append(SQLFragment.joined(prefix + [after], separator: " AND ", empty: .alwaysTrue)) }
            prefix.append(value.isNull ? expression + SQLFragment(" IS NULL") : expression + SQLFragment(" = ?", [value]))
        }
        var result = SQLFragment("(") + SQLFragment.joined(disjuncts, separator: " OR ", empty: .alwaysFalse) + SQLFragment(")")
        // The same condition, weakened to the first key alone, as a range the index can seek to.
        if let key = keys.first, let value = values.first {
            switch (key.ascending, value.isNull) {
            case (true, false): result.append(SQLFragment(" AND ") + key.expression + SQLFragment(" >= ?", [value]))
            case (false, false) where !key.nullable: result.append(SQLFragment(" AND ") + key.expression + SQLFragment(" <= ?", [value]))
            case (false, true): result.append(SQLFragment(" AND ") + key.expression + SQLFragment(" IS NULL"))
            default: break
            }
        }
        return result
    }

    static func cursorValue(_ value: SQLiteValue) -> QueryCursorValue? {
        switch value {
        case .null: nil
        case .integer(let integer): .integer(integer)
        case .real(let real): .real(real)
        case .text(let text): .text(text)
        case .blob(let data): .bytes(data)
        }
    }

    static func sqliteValue(_ value: QueryCursorValue?) -> SQLiteValue {
        switch value {
        case nil: .null
        case .integer(let integer)?: .integer(integer)
        case .real(let real)?: .real(real)
        case .text(let text)?: .text(text)
        case .bytes(let data)?: .blob(data)
        }
    }
}
