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
        let zones = plan.zoneRowIDs
        let comparator = filter.comparator
        switch filter.field {
        case .system(let system):
            let column = "r." + Self.column(system)
            let condition = Self.condition(comparator, filter.value)
            let positive = condition(column)
            let check = comparator.isNegative ? positive.negated : positive
            self.check = { _ in check }
            needsRecord = true
            drivers = []
            bound = nil
            if !comparator.isNegative {
                drivers = [
                    Driver(
                        select: SQLFragment("SELECT zone_id, record_name FROM records INDEXED BY \(Self.index(system)) WHERE ") + .zones("zone_id", zones)
                            + SQLFragment(" AND record_type = ? AND deleted = 0 AND ", [.text(plan.recordType)])
                            + condition(Self.column(system)),
                        mayRepeat: false
                    )
                ]
                bound = (filter.field, condition)
            }
        case .field(let name, let type):
            let scope = SQLFragment(" AND record_type = ? AND field_name = ? AND ", [.text(plan.recordType), .text(name)])
            // NB: INDEXED BY, because without statistics SQLite may prefer the primary key to
            // produce (zone_id, record_name) order for DISTINCT, reading the whole zone.
            let indexScan = SQLFragment("SELECT zone_id, record_name FROM field_index INDEXED BY field_index_values WHERE ") + .zones("zone_id", zones) + scope
            let tokenScan =
                SQLFragment("SELECT zone_id, record_name FROM field_tokens INDEXED BY field_tokens_search WHERE ") + .zones("zone_id", zones) + scope
            let member = { (alias: String) in
                SQLFragment(
                    "SELECT 1 FROM field_index f WHERE f.zone_id = \(alias).zone_id AND f.record_name = \(alias).record_name AND f.field_name = ? AND ",
                    [.text(name)]
                )
            }
            let tokenRow = { (alias: String) in
                SQLFragment(
                    "FROM field_tokens t WHERE t.zone_id = \(alias).zone_id AND t.record_name = \(alias).record_name AND t.field_name = ? AND ",
                    [.text(name)]
                )
            }
            let isList = type.isList
            needsRecord = false
            bound = nil
            switch comparator {
            case .containsAnyTokens:
                let tokens = Self.values(filter.value)
                check = { SQLFragment("EXISTS (SELECT 1 ") + tokenRow($0) + SQLFragment("t.token IN ") + .list(tokens) + SQLFragment(")") }
                drivers = [Driver(select: tokenScan + SQLFragment("token IN ") + .list(tokens), mayRepeat: true)]
            case .containsAllTokens:
                let tokens = Self.values(filter.value)
                check = {
                    SQLFragment("(SELECT count(*) ") + tokenRow($0) + SQLFragment("t.token IN ") + .list(tokens)
                        + SQLFragment(") = ?", [.integer(Int64(tokens.count))])
                }
                drivers = tokens.prefix(4).map { Driver(select: tokenScan + SQLFragment("token = ?", [$0]), mayRepeat: false) }
            case .listContainsAll, .notListContainsAll:
                let values = Self.distinct(Self.values(filter.value))
                if values.isEmpty {
                    let constant: SQLFragment = comparator == .listContainsAll ? .alwaysTrue : .alwaysFalse
                    check = { _ in constant }
                    drivers = []
                } else {
                    let test = SQLFragment(comparator == .listContainsAll ? ") = ?" : ") < ?", [.integer(Int64(values.count))])
                    check = { alias in
                        SQLFragment(
                            "(SELECT count(DISTINCT f.v) FROM field_index f WHERE f.zone_id = \(alias).zone_id AND f.record_name = \(alias).record_name AND f.field_name = ? AND f.v IN ",
                            [.text(name)]
                        ) + .list(values) + test
                    }
                    drivers =
                        comparator == .listContainsAll
                        ? values.prefix(4).map { Driver(select: indexScan + SQLFragment("v = ?", [$0]), mayRepeat: true) } : []
                }
            case .near:
                let condition = Self.nearCondition(filter)
                check = { SQLFragment("EXISTS (") + member($0) + condition("f.v", "f.v2") + SQLFragment(")") }
                drivers = [Driver(select: indexScan + condition("v", "v2"), mayRepeat: isList)]
            default:
                let condition = Self.condition(comparator, filter.value)
                let exists = { SQLFragment("EXISTS (") + member($0) + condition("f.v") + SQLFragment(")") }
                if comparator.isNegative {
                    check = { exists($0).negated }
                    drivers = []
                } else {
                    check = exists
                    drivers = [Driver(select: indexScan + condition("v"), mayRepeat: isList)]
                    if !isList { bound = (filter.field, condition) }
                }
            }
        }
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
