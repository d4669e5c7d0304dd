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
/// To choose (see ``choose(_:_:)``), the compiler counts the candidates of each
/// positive filter up to ``driverThreshold`` (index-only scans); a filter with
/// fewer drives, a filter with none ends the query at once. Otherwise a trial
/// scan of ``trialRows`` rows in sort order estimates how far the scan would
/// read to fill a page, and the smallest filter drives if it has fewer
/// candidates than that.
///
/// Paging is by keyset: the statement returns the sort keys of each row, and
/// `plan.after` becomes a `WHERE` that starts strictly after the last row's keys
/// (sort keys, then zone row and record name), with a redundant range on the
/// first key so the scan seeks instead of skipping.
struct SQLiteQueryCompiler {
    let plan: QueryPlan

    /// A filter that keeps fewer candidates than this drives the query.
    static let driverThreshold = 4000

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
        let filters = plan.allFilters.map { SQLiteQueryFilter($0, plan: plan) }
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

    /// Picks how to run the query by comparing the rows each shape would read.
    ///
    /// 1. Count each positive filter's candidates up to ``driverThreshold`` (index-only); a filter
    ///    with none ends the query, and the smallest under the threshold drives.
    /// 2. Otherwise read the first ``trialRows`` rows in sort order and count those passing every
    ///    filter: the scan would read about `limit × trialRows / passing` rows.
    /// 3. Count the smallest filter's candidates up to that many: fewer, and driving reads less.
    func choose(_ filters: [SQLiteQueryFilter], _ db: SQLiteConnection) throws -> Strategy {
        var best: (count: Int, driver: SQLiteQueryFilter.Driver)?
        for driver in drivers(filters) {
            let count = try Self.count(driver.select, upTo: Self.driverThreshold, db)
            if count == 0 { return .empty }
            if count < best?.count ?? Int.max { best = (count, driver) }
            if count < 64 { break }
        }
        guard let best else { return .scan }
        // No index yields distance order, so a distance sort always sorts its candidates: the fewer the better.
        if best.count < Self.driverThreshold || isDistanceFirst { return .drive(best.driver) }
        var trial = SQLFragment("SELECT count(*) FROM (") + keys(filters, .scan, applyingFilters: false, limit: Self.trialRows) + SQLFragment(") x")
        if filters.contains(where: \.needsRecord) {
            trial.append(" CROSS JOIN records r ON r.zone_id = x.zone_id AND r.record_name = x.record_name")
        }
        trial.append(" WHERE 1")
        for filter in filters { trial.append(SQLFragment(" AND ") + filter.check("x")) }
        let passing = try db.fetchOne(Int.self, trial.sql, SQLiteArguments(trial.arguments)) ?? 0
        let scanRows = (plan.limit + 1) * Self.trialRows / max(passing, 1) * (passing == 0 ? 4 : 1)
        if scanRows <= Self.driverThreshold { return .scan }
        let candidates = try Self.count(best.driver.select, upTo: scanRows, db)
        return candidates < scanRows ? .drive(best.driver) : .scan
    }

    /// The drivers of `filters`, in order. With a read policy (``QueryPlan/createdBy``, the first
    /// filter) every other driver is narrowed to the reader's records, so no count taken to choose
    /// the strategy — nor the early end when one is zero — depends on records the reader cannot see.
    func drivers(_ filters: [SQLiteQueryFilter]) -> [SQLiteQueryFilter.Driver] {
        guard let creator = plan.createdBy, let policy = filters.first else { return filters.flatMap(\.drivers) }
        let narrowed = filters.dropFirst().flatMap(\.drivers).map { driver in
            SQLiteQueryFilter.Driver(
                select: SQLFragment("SELECT x.zone_id AS zone_id, x.record_name AS record_name FROM (") + driver.select
                    + SQLFragment(
                        ") x CROSS JOIN records c ON c.zone_id = x.zone_id AND c.record_name = x.record_name WHERE c.created_by = ?", [.text(creator)]
                    ),
                mayRepeat: driver.mayRepeat
            )
        }
        return policy.drivers + narrowed
    }

    /// How many rows the trial scan reads to estimate the filters' joint selectivity.
    static let trialRows = 500

    /// `count(*)` of a query's rows, stopping at `limit`.
    private static func count(_ select: SQLFragment, upTo limit: Int, _ db: SQLiteConnection) throws -> Int {
        let counting = SQLFragment("SELECT count(*) FROM (") + select + SQLFragment(" LIMIT ?)", [.integer(Int64(limit))])
        return try db.fetchOne(Int.self, counting.sql, SQLiteArguments(counting.arguments)) ?? 0
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
    ///
    /// An inner query finds the page's keys — zone row, record name, sort values — touching
    /// only index rows (and `records` only for system fields); the outer query reads the
    /// page's records.
    func select(_ filters: [SQLiteQueryFilter], _ strategy: Strategy) -> SQLFragment {
        let inner = keys(filters, strategy, applyingFilters: true, limit: plan.limit + 1)
        let ascending = plan.sorts.first?.ascending ?? true
        var statement = SQLFragment("SELECT " + Self.recordColumns)
        for index in plan.sorts.indices { statement.append(", q.k\(index)") }
        statement.append(SQLFragment(" FROM (") + inner + SQLFragment(") q CROSS JOIN records r ON r.zone_id = q.zone_id AND r.record_name = q.record_name"))
        let outerOrder =
            plan.sorts.enumerated().map { index, sort in "q.k\(index)" + (sort.ascending ? " ASC" : " DESC") }
            + ["q.zone_id", "q.record_name"].map { $0 + (ascending ? " ASC" : " DESC") }
        statement.append(" ORDER BY " + outerOrder.joined(separator: ", "))
        return statement
    }

    /// The inner query: `zone_id`, `record_name` and the sort keys `k0…` of the page's rows, in order.
    ///
    /// - Parameters:
    ///   - applyingFilters: `false` for the trial scan that measures how many rows pass the filters.
    ///   - limit: The most rows.
    func keys(_ filters: [SQLiteQueryFilter], _ strategy: Strategy, applyingFilters: Bool, limit: Int) -> SQLFragment {
        let (alias, joinsFirstSort) = rowSource(of: strategy)
        let keys = plan.sorts.enumerated().map { index, sort in sortKey(sort, joined: index == 0 && joinsFirstSort, alias: alias) }
        // NB: with one zone the zone key is constant, and leaving it out lets a continuation seek
        // straight to its position in the index (an `OR` over (zone, name) made every page rescan
        // the zone from its start: paging 100,000 records took 28 s).
        let singleZone = plan.zoneRowIDs.count == 1
        let ties = tieKeys(alias: alias, singleZone: singleZone)
        let needsRecord =
            alias != "r"
            && ((applyingFilters && filters.contains(where: \.needsRecord)) || plan.sorts.contains { if case .system = $0.field { true } else { false } })

        var inner = SQLFragment("SELECT \(alias).zone_id AS zone_id, \(alias).record_name AS record_name")
        for (index, key) in keys.enumerated() { inner.append(SQLFragment(", ") + key.expression + SQLFragment(" AS k\(index)")) }
        appendRows(of: strategy, joinsFirstSort: joinsFirstSort, alias: alias, needsRecord: needsRecord, to: &inner)
        if applyingFilters {
            for filter in filters { inner.append(SQLFragment(" AND ") + filter.check(alias)) }
        }
        if case .scan = strategy, let first = plan.sorts.first, first.relativeLocation == nil, let key = keys.first, key.expression.arguments.isEmpty {
            // A filter on the first sort field bounds the scan of its index.
            for filter in filters {
                if let bound = filter.bound, bound.field == first.field {
                    inner.append(SQLFragment(" AND ") + bound.condition(key.expression.sql))
                }
            }
        }
        if let after = plan.after {
            inner.append(SQLFragment(" AND ") + keyset(keys + ties, after: after, includesZone: !singleZone))
        }
        let innerOrder =
            keys.enumerated().map { index, key in "\(index + 3)" + (key.ascending ? " ASC" : " DESC") }
            + ties.map { $0.expression.sql + ($0.ascending ? " ASC" : " DESC") }
        inner.append(" ORDER BY " + innerOrder.joined(separator: ", "))
        inner.append(" LIMIT ?", .integer(Int64(limit)))
        return inner
    }

    /// The alias of the rows the inner query reads (`d` a driver, `s0` the first sort field's index
    /// rows, `r` the records), and whether a scan reads the first sort field's index rows.
    private func rowSource(of strategy: Strategy) -> (alias: String, joinsFirstSort: Bool) {
        let joinsFirstSort: Bool
        if case .scan = strategy, let first = plan.sorts.first, case .field = first.field {
            joinsFirstSort = true
        } else {
            joinsFirstSort = false
        }
        switch strategy {
        case .drive: return ("d", joinsFirstSort)
        case .scan where joinsFirstSort: return ("s0", joinsFirstSort)
        case .scan, .empty: return ("r", joinsFirstSort)
        }
    }

    /// The keys that break ties after the sorts: the zone (left out for one zone) and the record name
    /// (left out when a sort is on it: names are unique within a zone).
    private func tieKeys(alias: String, singleZone: Bool) -> [SortKey] {
        let ascending = plan.sorts.first?.ascending ?? true
        var ties = [
            SortKey(expression: SQLFragment(alias + ".zone_id"), ascending: ascending, nullable: false),
            SortKey(expression: SQLFragment(alias + ".record_name"), ascending: ascending, nullable: false),
        ]
        if plan.sorts.contains(where: { $0.field == .system(.recordName) }) {
            ties.removeLast()  // names are unique within a zone: the zone alone breaks ties
        }
        if singleZone { ties.removeFirst() }
        return ties
    }

    /// `FROM` the strategy's rows (joined to `records` when the query needs its columns) `WHERE` they are
    /// the plan's zones and record type.
    private func appendRows(of strategy: Strategy, joinsFirstSort: Bool, alias: String, needsRecord: Bool, to inner: inout SQLFragment) {
        switch strategy {
        case .drive(let driver):
            inner.append(SQLFragment(driver.mayRepeat ? " FROM (SELECT DISTINCT zone_id, record_name FROM (" : " FROM (") + driver.select)
            inner.append(driver.mayRepeat ? ")) d" : ") d")
        case .scan where joinsFirstSort:
            inner.append(" FROM field_index s0 INDEXED BY field_index_values")
        case .scan, .empty:
            // The index in the first sort's order, so the scan reads no row twice and sorts nothing.
            if case .system(let system)? = plan.sorts.first?.field {
                inner.append(" FROM records r INDEXED BY " + SQLiteQueryFilter.index(system))
            } else {
                inner.append(" FROM records r INDEXED BY records_by_type")
            }
        }
        if needsRecord {
            inner.append(" CROSS JOIN records r ON r.zone_id = \(alias).zone_id AND r.record_name = \(alias).record_name")
        }
        switch strategy {
        case .drive:
            inner.append(" WHERE 1")
        case .scan where joinsFirstSort:
            if case .field(let name, _)? = plan.sorts.first?.field {
                inner.append(SQLFragment(" WHERE ") + .zones("s0.zone_id", plan.zoneRowIDs))
                inner.append(" AND s0.record_type = ? AND s0.field_name = ? AND s0.ordinal = 0", .text(plan.recordType), .text(name))
            }
        case .scan, .empty:
            inner.append(SQLFragment(" WHERE ") + .zones("r.zone_id", plan.zoneRowIDs))
            inner.append(" AND r.record_type = ? AND r.deleted = 0", .text(plan.recordType))
        }
    }

    private func sortKey(_ sort: QuerySort, joined: Bool, alias: String) -> SortKey {
        switch sort.field {
        case .system(let system):
            return SortKey(expression: SQLFragment("r." + SQLiteQueryFilter.column(system)), ascending: sort.ascending, nullable: false)
        case .field(let name, _):
            let nullable = !keepsOnlyPresentValues(sort.field)
            if let point = sort.relativeLocation {
                if joined {
                    return SortKey(expression: SQLiteQueryFilter.distance("s0.v", "s0.v2", from: point), ascending: sort.ascending, nullable: true)
                }
                let expression =
                    SQLFragment("(SELECT ") + SQLiteQueryFilter.distance("k.v", "k.v2", from: point)
                    + SQLFragment(
                        " FROM field_index k WHERE k.zone_id = \(alias).zone_id AND k.record_name = \(alias).record_name AND k.field_name = ? AND k.ordinal = 0)",
                        [.text(name)])
                return SortKey(expression: expression, ascending: sort.ascending, nullable: true)
            }
            if joined { return SortKey(expression: SQLFragment("s0.v"), ascending: sort.ascending, nullable: nullable) }
            let expression = SQLFragment(
                "(SELECT k.v FROM field_index k WHERE k.zone_id = \(alias).zone_id AND k.record_name = \(alias).record_name AND k.field_name = ? AND k.ordinal = 0)",
                [.text(name)]
            )
            return SortKey(expression: expression, ascending: sort.ascending, nullable: nullable)
        }
    }

    /// Whether a positive filter on `field` rules out records that lack it.
    private func keepsOnlyPresentValues(_ field: QueryField) -> Bool {
        plan.allFilters.contains { $0.field == field && !$0.comparator.isNegative }
    }

    // MARK: Keyset

    /// Rows strictly after the cursor in the order of `keys`; NULL sorts before every value.
    ///
    /// - Parameter includesZone: Whether `keys` has the zone tie (several zones) before the name tie.
    func keyset(_ keys: [SortKey], after cursor: QueryCursor, includesZone: Bool = true) -> SQLFragment {
        var values: [SQLiteValue] = cursor.sortValues.map(Self.sqliteValue)
        if includesZone { values.append(.integer(cursor.zoneRowID)) }
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
                after =
                    key.nullable
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
