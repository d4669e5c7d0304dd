import StratusServer
import StratusServerSQL
import StratusSQLite
import StratusWire

/// One ``QueryFilter`` in SQL: a per-record check and the index scans that could drive the query.
///
/// How each comparator compiles (`C(x)` is a condition on a value column `x`):
///
/// | Comparator | `C(x)` | check on record `r` |
/// |---|---|---|
/// | `EQUALS`, `LIST_CONTAINS` | `x = ?` | `EXISTS` index row with `C(f.v)` |
/// | `LESS_THAN` … `GREATER_THAN_OR_EQUALS` | `x < ?` … | same |
/// | `IN`, `LIST_CONTAINS_ANY` | `x IN (…)` | same |
/// | `BEGINS_WITH`, `LIST_MEMBER_BEGINS_WITH` | `x >= p AND x < succ(p)` (an index range) | same |
/// | `NOT_…` of the above | — | `NOT EXISTS` (a record without the field matches) |
/// | `LIST_CONTAINS_ALL` / `NOT_…` | — | count of distinct matching members `=` / `<` the value count |
/// | `CONTAINS_ANY_TOKENS` | — | `EXISTS` token row with `token IN (…)` |
/// | `CONTAINS_ALL_TOKENS` | — | count of matching token rows `=` the token count |
/// | `NEAR` | latitude band `AND` longitude band (bounding box) `AND` haversine ≤ distance | `EXISTS` |
///
/// System fields compare the `records` columns directly. A driver is
/// `SELECT zone_id, record_name …` over an index range for a positive comparator;
/// the compiler counts a few of each and may start from the smallest.
struct SQLiteQueryFilter {
    /// A boolean expression on a row source whose alias (given) has `zone_id` and `record_name`.
    var check: (String) -> SQLFragment
    /// Whether the check reads `records` columns (a system field) through the alias `r`.
    var needsRecord: Bool
    /// Uncorrelated `SELECT zone_id, record_name` scans that produce every record the filter keeps.
    var drivers: [Driver]
    /// For a positive comparator: the condition on a value expression, to bound a sort on the same field.
    var bound: (field: QueryField, condition: (String) -> SQLFragment)?

    /// An index scan producing candidate records.
    struct Driver {
        var select: SQLFragment
        /// Whether one record may appear more than once (list members, tokens).
        var mayRepeat: Bool
    }

    /// The earth's diameter in meters, for the haversine expression.
    static let earthDiameter = 2 * GeoDistance.earthRadius

    init(_ filter: QueryFilter, plan: QueryPlan) {
        switch filter.field {
        case .system(let system): self = Self.onSystemField(system, filter, plan: plan)
        case .field(let name, let type): self = Self.onField(name, isList: type.isList, filter, plan: plan)
        }
    }

    private init(
        check: @escaping (String) -> SQLFragment, needsRecord: Bool, drivers: [Driver],
        bound: (field: QueryField, condition: (String) -> SQLFragment)? = nil
    ) {
        self.check = check
        self.needsRecord = needsRecord
        self.drivers = drivers
        self.bound = bound
    }

    /// A system field compares the `records` column directly.
    private static func onSystemField(_ system: SystemFieldName, _ filter: QueryFilter, plan: QueryPlan) -> SQLiteQueryFilter {
        let comparator = filter.comparator
        let condition = Self.condition(comparator, filter.value)
        let positive = condition("r." + Self.column(system))
        let check = comparator.isNegative ? positive.negated : positive
        guard !comparator.isNegative else { return SQLiteQueryFilter(check: { _ in check }, needsRecord: true, drivers: []) }
        let driver = Driver(
            select: SQLFragment("SELECT zone_id, record_name FROM records INDEXED BY \(Self.index(system)) WHERE ") + .zones("zone_id", plan.zoneRowIDs)
                + SQLFragment(" AND record_type = ? AND deleted = 0 AND ", [.text(plan.recordType)])
                + condition(Self.column(system)),
            mayRepeat: false
        )
        return SQLiteQueryFilter(check: { _ in check }, needsRecord: true, drivers: [driver], bound: (filter.field, condition))
    }

    /// The SQL every comparator on one record field is made of.
    private struct FieldRows {
        /// `SELECT zone_id, record_name` over the field's value index, up to the condition on `v`.
        var indexScan: SQLFragment
        /// `SELECT zone_id, record_name` over the field's tokens, up to the condition on `token`.
        var tokenScan: SQLFragment
        /// The correlated value rows of the record aliased as given, up to the condition on `f.v`.
        var member: (String) -> SQLFragment
        /// The correlated token rows of the record aliased as given, up to the condition on `t.token`.
        var tokenRow: (String) -> SQLFragment

        init(name: String, plan: QueryPlan) {
            let zones = plan.zoneRowIDs
            let scope = SQLFragment(" AND record_type = ? AND field_name = ? AND ", [.text(plan.recordType), .text(name)])
            // NB: INDEXED BY, because without statistics SQLite may prefer the primary key to
            // produce (zone_id, record_name) order for DISTINCT, reading the whole zone.
            indexScan = SQLFragment("SELECT zone_id, record_name FROM field_index INDEXED BY field_index_values WHERE ") + .zones("zone_id", zones) + scope
            tokenScan =
                SQLFragment("SELECT zone_id, record_name FROM field_tokens INDEXED BY field_tokens_search WHERE ") + .zones("zone_id", zones) + scope
            member = { (alias: String) in
                SQLFragment(
                    "SELECT 1 FROM field_index f WHERE f.zone_id = \(alias).zone_id AND f.record_name = \(alias).record_name AND f.field_name = ? AND ",
                    [.text(name)]
                )
            }
            tokenRow = { (alias: String) in
                SQLFragment(
                    "FROM field_tokens t WHERE t.zone_id = \(alias).zone_id AND t.record_name = \(alias).record_name AND t.field_name = ? AND ",
                    [.text(name)]
                )
            }
        }
    }

    /// A record field: checks on its index (or token) rows.
    private static func onField(_ name: String, isList: Bool, _ filter: QueryFilter, plan: QueryPlan) -> SQLiteQueryFilter {
        let rows = FieldRows(name: name, plan: plan)
        let comparator = filter.comparator
        switch comparator {
        case .containsAnyTokens:
            let tokens = Self.values(filter.value)
            return SQLiteQueryFilter(
                check: { SQLFragment("EXISTS (SELECT 1 ") + rows.tokenRow($0) + SQLFragment("t.token IN ") + .list(tokens) + SQLFragment(")") },
                needsRecord: false, drivers: [Driver(select: rows.tokenScan + SQLFragment("token IN ") + .list(tokens), mayRepeat: true)])
        case .containsAllTokens:
            let tokens = Self.values(filter.value)
            return SQLiteQueryFilter(
                check: {
                    SQLFragment("(SELECT count(*) ") + rows.tokenRow($0) + SQLFragment("t.token IN ") + .list(tokens)
                        + SQLFragment(") = ?", [.integer(Int64(tokens.count))])
                },
                needsRecord: false,
                drivers: tokens.prefix(4).map { Driver(select: rows.tokenScan + SQLFragment("token = ?", [$0]), mayRepeat: false) })
        case .listContainsAll, .notListContainsAll:
            return listContainsAll(name, filter, rows)
        case .near:
            let condition = Self.nearCondition(filter)
            return SQLiteQueryFilter(
                check: { SQLFragment("EXISTS (") + rows.member($0) + condition("f.v", "f.v2") + SQLFragment(")") }, needsRecord: false,
                drivers: [Driver(select: rows.indexScan + condition("v", "v2"), mayRepeat: isList)])
        default:
            let condition = Self.condition(comparator, filter.value)
            let exists = { SQLFragment("EXISTS (") + rows.member($0) + condition("f.v") + SQLFragment(")") }
            if comparator.isNegative {
                return SQLiteQueryFilter(check: { exists($0).negated }, needsRecord: false, drivers: [])
            }
            return SQLiteQueryFilter(
                check: exists, needsRecord: false, drivers: [Driver(select: rows.indexScan + condition("v"), mayRepeat: isList)],
                bound: isList ? nil : (filter.field, condition))
        }
    }

    /// `LIST_CONTAINS_ALL` and its negation: a count of the distinct members among the values.
    private static func listContainsAll(_ name: String, _ filter: QueryFilter, _ rows: FieldRows) -> SQLiteQueryFilter {
        let comparator = filter.comparator
        let values = Self.distinct(Self.values(filter.value))
        if values.isEmpty {
            let constant: SQLFragment = comparator == .listContainsAll ? .alwaysTrue : .alwaysFalse
            return SQLiteQueryFilter(check: { _ in constant }, needsRecord: false, drivers: [])
        }
        let test = SQLFragment(comparator == .listContainsAll ? ") = ?" : ") < ?", [.integer(Int64(values.count))])
        return SQLiteQueryFilter(
            check: { alias in
                SQLFragment(
                    "(SELECT count(DISTINCT f.v) FROM field_index f WHERE f.zone_id = \(alias).zone_id AND f.record_name = \(alias).record_name AND f.field_name = ? AND f.v IN ",
                    [.text(name)]
                ) + .list(values) + test
            },
            needsRecord: false,
            drivers: comparator == .listContainsAll
                ? values.prefix(4).map { Driver(select: rows.indexScan + SQLFragment("v = ?", [$0]), mayRepeat: true) } : [])
    }

    /// The positive condition of a value comparator on a column expression.
    static func condition(_ comparator: Comparator, _ value: FieldValue) -> (String) -> SQLFragment {
        switch comparator {
        case .equals, .notEquals, .listContains, .notListContains:
            let bound = sqlValue(value)
            return { SQLFragment($0 + " = ?", [bound]) }
        case .lessThan:
            let bound = sqlValue(value)
            return { SQLFragment($0 + " < ?", [bound]) }
        case .lessThanOrEquals:
            let bound = sqlValue(value)
            return { SQLFragment($0 + " <= ?", [bound]) }
        case .greaterThan:
            let bound = sqlValue(value)
            return { SQLFragment($0 + " > ?", [bound]) }
        case .greaterThanOrEquals:
            let bound = sqlValue(value)
            return { SQLFragment($0 + " >= ?", [bound]) }
        case .in, .notIn, .listContainsAny, .notListContainsAny:
            let members = distinct(values(value))
            guard !members.isEmpty else { return { _ in .alwaysFalse } }
            return { SQLFragment($0 + " IN ") + .list(members) }
        case .beginsWith, .notBeginsWith, .listMemberBeginsWith, .notListMemberBeginsWith:
            let prefix = value.stringValue ?? ""
            guard let upper = SQLTextOrder.prefixUpperBound(prefix) else {
                return { SQLFragment($0 + " >= ?", [.text(prefix)]) }
            }
            return { SQLFragment($0 + " >= ? AND " + $0 + " < ?", [.text(prefix), .text(upper)]) }
        default:
            return { _ in .alwaysFalse }
        }
    }

    /// The bounding box and exact distance test of a NEAR filter on latitude and longitude columns.
    static func nearCondition(_ filter: QueryFilter) -> (String, String) -> SQLFragment {
        guard case .location(let centre) = filter.value, let meters = filter.distance else { return { _, _ in .alwaysFalse } }
        let box = GeoDistance.BoundingBox(latitude: centre.latitude, longitude: centre.longitude, meters: meters)
        return { latitude, longitude in
            var fragment = SQLFragment(latitude + " BETWEEN ? AND ?", [.real(box.minimumLatitude), .real(box.maximumLatitude)])
            if box.crossesAntimeridian {
                fragment.append(" AND (" + longitude + " >= ? OR " + longitude + " <= ?)", .real(box.minimumLongitude), .real(box.maximumLongitude))
            } else if !box.allLongitudes {
                fragment.append(" AND " + longitude + " BETWEEN ? AND ?", .real(box.minimumLongitude), .real(box.maximumLongitude))
            }
            fragment.append(" AND ")
            fragment.append(distance(latitude, longitude, from: centre))
            fragment.append(" <= ?", .real(meters))
            return fragment
        }
    }

    /// The haversine distance in meters between a point in two columns and `centre`.
    static func distance(_ latitude: String, _ longitude: String, from centre: Location) -> SQLFragment {
        SQLFragment(
            "(\(earthDiameter) * asin(min(1.0, sqrt(pow(sin(radians(\(latitude) - ?) / 2), 2) + cos(radians(?)) * cos(radians(\(latitude))) * pow(sin(radians(\(longitude) - ?) / 2), 2)))))",
            [.real(centre.latitude), .real(centre.latitude), .real(centre.longitude)]
        )
    }

    /// The `records` column of a system field.
    static func column(_ system: SystemFieldName) -> String {
        switch system {
        case .recordName: "record_name"
        case .createdTimestamp: "created_at"
        case .modifiedTimestamp: "modified_at"
        case .createdUserRecordName: "created_by"
        case .modifiedUserRecordName: "modified_by"
        // NB: the planner rejects share and parent; nothing matches them.
        case .share, .parent: "NULL"
        }
    }

    /// The `records` index that serves a system field.
    static func index(_ system: SystemFieldName) -> String {
        SQLiteSystemIndexes.index(for: system)?.name ?? "records_by_type"
    }

    /// How the index stores a scalar value.
    static func sqlValue(_ value: FieldValue) -> SQLiteValue {
        switch value {
        case .string(let text): .text(text)
        case .int64(let integer): .integer(integer)
        case .double(let double): .real(double)
        case .timestamp(let timestamp): .integer(timestamp.millisecondsSince1970)
        case .bytes(let data): .blob(data)
        case .reference(let reference): .text(reference.recordName)
        case .location(let location): .real(location.latitude)
        default: .null
        }
    }

    /// The members of a list value as the index stores them.
    static func values(_ value: FieldValue) -> [SQLiteValue] {
        switch value {
        case .stringList(let values): values.map { .text($0) }
        case .int64List(let values): values.map { .integer($0) }
        case .doubleList(let values): values.map { .real($0) }
        case .timestampList(let values): values.map { .integer($0.millisecondsSince1970) }
        case .bytesList(let values): values.map { .blob($0) }
        case .referenceList(let values): values.map { .text($0.recordName) }
        case .emptyList: []
        default: [sqlValue(value)]
        }
    }

    static func distinct(_ values: [SQLiteValue]) -> [SQLiteValue] {
        var seen: Set<SQLiteValue> = []
        return values.filter { seen.insert($0).inserted }
    }
}
