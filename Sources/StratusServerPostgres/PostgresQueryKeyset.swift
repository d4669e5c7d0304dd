import StratusPostgres
import StratusServer
import StratusWire

/// The order of a plan, computed by PostgreSQL, so a page reads about `limit` rows instead of
/// every candidate.
///
/// Every sort descriptor but a sort by BYTES becomes a key the candidate query selects, orders
/// by and continues after: a system column (record name, creation or modification time or user),
/// a record field's first value of its kind in `field_index` (missing values first), or the
/// haversine distance of a location field from the sort's point, computed from `vr` and `vr2`
/// with ``GeoDistance``'s formula. Ties break on zone and record name in the first sort's
/// direction; text compares by code point (`COLLATE "C"`), as ``PostgresQueryEvaluator`` orders
/// in memory. The query returns the keys it sorted by, and cursors carry those values, so a
/// page continues strictly after the last row exactly as PostgreSQL computed it. With no sort
/// and one zone, `records_by_type_bytewise` (or `records_by_creator` for a read policy) is
/// read in order without a sort; otherwise PostgreSQL keeps the top rows of a sort.
struct PostgresQueryKeyset {
    /// What one sort descriptor sorts on.
    enum Key {
        /// A `records` column, never NULL.
        case system(column: String, kind: PostgresCandidateSQL.Kind)
        /// A field's first value of its kind; NULL when the record lacks it.
        case field(name: String, kind: PostgresCandidateSQL.Kind)
        /// The distance in meters of a location field's value from a point; NULL when the record lacks it.
        case distance(name: String, from: Location)

        var kind: PostgresCandidateSQL.Kind {
            switch self {
            case .system(_, let kind), .field(_, let kind): kind
            case .distance: .real
            }
        }
    }

    /// One key of the order and its direction.
    struct Sort {
        var key: Key
        var ascending: Bool
    }

    let sorts: [Sort]
    /// The direction of the zone and record-name ties: the first sort's, ascending without one.
    let ascending: Bool

    /// The order of `plan`, or `nil` when PostgreSQL cannot compute it (a sort by BYTES) or the
    /// plan's cursor does not fit it; such plans are sorted in memory.
    init?(plan: QueryPlan) {
        var sorts: [Sort] = []
        for (index, sort) in plan.sorts.enumerated() {
            guard let key = Self.key(sort) else { return nil }
            if let after = plan.after, index >= after.sortValues.count || !Self.fits(after.sortValues[index], key) { return nil }
            sorts.append(Sort(key: key, ascending: sort.ascending))
        }
        if let after = plan.after, after.sortValues.count != plan.sorts.count { return nil }
        self.sorts = sorts
        ascending = plan.sorts.first?.ascending ?? true
    }

    private static func key(_ sort: QuerySort) -> Key? {
        switch sort.field {
        case .system(let system):
            switch system {
            case .recordName: return .system(column: "r.record_name COLLATE \"C\"", kind: .text)
            case .createdTimestamp: return .system(column: "r.created_at", kind: .integer)
            case .modifiedTimestamp: return .system(column: "r.modified_at", kind: .integer)
            case .createdUserRecordName: return .system(column: "r.created_by COLLATE \"C\"", kind: .text)
            case .modifiedUserRecordName: return .system(column: "r.modified_by COLLATE \"C\"", kind: .text)
            case .share, .parent: return nil
            }
        case .field(let name, let type):
            if let point = sort.relativeLocation { return type == .location ? .distance(name: name, from: point) : nil }
            return PostgresCandidateSQL.Kind(type).map { .field(name: name, kind: $0) }
        }
    }

    /// Whether a cursor's value can continue after `key`: a value of its kind, or NULL where values may be missing.
    private static func fits(_ value: QueryCursorValue?, _ key: Key) -> Bool {
        switch (key, value) {
        case (.system, nil): false
        case (.field, nil), (.distance, nil): true
        case (_, let value?): PostgresCandidateSQL.Kind(value) == key.kind
        }
    }

    /// One term of the order: an expression, its direction and whether it can be NULL.
    private struct Term {
        var expression: String
        var ascending: Bool
        var nullable: Bool
    }

    /// Selects the sort keys (after the record columns) and adds "after `cursor`" (if any), the
    /// order and the limit to the candidate query.
    func restrict(_ candidates: inout PostgresCandidateSQL, singleZone: Int64?, after cursor: QueryCursor?, limit: Int) {
        // With one zone, an equality lets PostgreSQL read an index in order instead of sorting.
        if let singleZone { candidates.require("r.zone_id = \(candidates.bind(singleZone))") }
        var terms: [Term] = []
        for sort in sorts {
            let (expression, nullable) = Self.expression(sort.key, &candidates)
            candidates.select(expression)
            terms.append(Term(expression: expression, ascending: sort.ascending, nullable: nullable))
        }
        terms.append(Term(expression: "r.zone_id", ascending: ascending, nullable: false))
        terms.append(Term(expression: "r.record_name COLLATE \"C\"", ascending: ascending, nullable: false))
        if let cursor {
            let values = cursor.sortValues + [.integer(cursor.zoneRowID), .text(cursor.recordName)]
            candidates.require(Self.after(terms, values, &candidates))
        }
        // Missing values are the smallest: first ascending, last descending (as the keyset condition says).
        let order = terms.map { term in
            term.expression + (term.ascending ? " ASC" : " DESC") + (term.nullable ? (term.ascending ? " NULLS FIRST" : " NULLS LAST") : "")
        }
        candidates.append(" ORDER BY " + order.joined(separator: ", ") + " LIMIT \(candidates.bind(limit))")
    }

    /// The sort keys of a row the candidate query returned, as a cursor holds them.
    ///
    /// - Parameter offset: The column of the first key (the number of record columns).
    func values(of row: PostgresRow, from offset: Int) throws -> [QueryCursorValue?] {
        try sorts.enumerated().map { index, sort -> QueryCursorValue? in
            switch sort.key.kind {
            case .integer: return (try row[offset + index] as Int64?).map(QueryCursorValue.integer)
            case .real: return (try row[offset + index] as Double?).map(QueryCursorValue.real)
            case .text: return (try row[offset + index] as String?).map(QueryCursorValue.text)
            }
        }
    }

    private static func expression(_ key: Key, _ candidates: inout PostgresCandidateSQL) -> (sql: String, nullable: Bool) {
        switch key {
        case .system(let column, _):
            return (column, false)
        case .field(let name, let kind):
            let column = "f.\(kind.column)"
            return (
                "(SELECT \(column) FROM field_index f WHERE f.zone_id = r.zone_id AND f.record_name = r.record_name"
                    + " AND f.field_name = \(candidates.bind(name)) AND \(column) IS NOT NULL ORDER BY f.ordinal LIMIT 1)",
                true
            )
        case .distance(let name, let point):
            let latitude = candidates.bind(point.latitude)
            let longitude = candidates.bind(point.longitude)
            let haversine =
                "\(2 * GeoDistance.earthRadius) * asin(least(1.0, sqrt(power(sin(radians(f.vr - \(latitude)) / 2), 2)"
                + " + cos(radians(\(latitude))) * cos(radians(f.vr)) * power(sin(radians(f.vr2 - \(longitude)) / 2), 2))))"
            return (
                "(SELECT \(haversine) FROM field_index f WHERE f.zone_id = r.zone_id AND f.record_name = r.record_name"
                    + " AND f.field_name = \(candidates.bind(name)) AND f.vr2 IS NOT NULL ORDER BY f.ordinal LIMIT 1)",
                true
            )
        }
    }

    /// Rows strictly after `values` in the order of `terms`; NULL sorts before every value.
    private static func after(_ terms: [Term], _ values: [QueryCursorValue?], _ candidates: inout PostgresCandidateSQL) -> String {
        var disjuncts: [String] = []
        var prefix: [String] = []
        for (term, value) in zip(terms, values) {
            let expression = term.expression
            let bound = value.map { candidates.bind(bindable($0)) }
            switch (term.ascending, bound) {
            case (true, let bound?): disjuncts.append((prefix + ["\(expression) > \(bound)"]).joined(separator: " AND "))
            case (true, nil): disjuncts.append((prefix + ["\(expression) IS NOT NULL"]).joined(separator: " AND "))
            case (false, let bound?):
                let below = term.nullable ? "(\(expression) < \(bound) OR \(expression) IS NULL)" : "\(expression) < \(bound)"
                disjuncts.append((prefix + [below]).joined(separator: " AND "))
            case (false, nil): break  // nothing sorts below NULL
            }
            prefix.append(bound.map { "\(expression) = \($0)" } ?? "\(expression) IS NULL")
        }
        guard !disjuncts.isEmpty else { return "false" }
        return "(" + disjuncts.map { "(" + $0 + ")" }.joined(separator: " OR ") + ")"
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

    /// The index a read policy's query reads (`created_by = caller`), in the store's order.
    static func registerCreatorIndex(in migrator: inout PostgresMigrator) {
        migrator.registerMigration("pg-v9-records-by-creator") { db in
            try db.execute(
                "CREATE INDEX records_by_creator ON records (zone_id, record_type, created_by COLLATE \"C\", record_name COLLATE \"C\") WHERE NOT deleted"
            )
        }
    }
}
