import Foundation
import StratusPostgres
import StratusServer
import StratusServerSQL
import StratusWire

/// The part of a plan's filters PostgreSQL narrows candidates with, through `field_index` and the `records` columns.
///
/// Each positive filter whose value matches the field's stored kind becomes an `EXISTS` probe
/// of `field_index` (or a condition on a system column); the planner can drive the query from
/// the most selective one. `NEAR` becomes a probe of its bounding box (latitude in `vr`,
/// longitude in `vr2`). The read policy (``QueryPlan/createdBy``) is the first condition,
/// `records_by_creator` serves it. The result is a superset of the matches — every candidate
/// is then checked exactly in memory — so a filter left out here (negations, tokens, bytes)
/// costs reading, never correctness.
struct PostgresCandidateSQL {
    /// Expressions selected after the record columns (sort keys), in order.
    private var extraColumns: [String] = []
    private var conditions: [String]
    private var tail = ""
    private(set) var parameters: [any PostgresBindable]

    /// The statement: the record columns, then the extra columns, of the live records of the type that meet the conditions.
    var sql: String {
        let columns = PostgresStoreTransaction.recordColumns.split(separator: ",").map { "r." + $0.trimmingCharacters(in: .whitespaces) }
        return "SELECT " + (columns + extraColumns).joined(separator: ", ") + " FROM records r WHERE " + conditions.joined(separator: " AND ") + tail
    }

    init(plan: QueryPlan) {
        conditions = ["r.zone_id = ANY($1::bigint[])", "r.record_type = $2", "NOT r.deleted"]
        parameters = [PostgresArray(plan.zoneRowIDs), plan.recordType]
        for filter in plan.allFilters {
            if let condition = condition(filter) { conditions.append(condition) }
        }
    }

    /// Adds a condition every candidate must meet.
    mutating func require(_ condition: String) {
        conditions.append(condition)
    }

    /// Adds a column after the record columns; they are read back in the order added.
    mutating func select(_ expression: String) {
        extraColumns.append(expression)
    }

    /// Appends SQL text after the conditions (order, limit).
    mutating func append(_ text: String) {
        tail += text
    }

    /// Adds a parameter; returns its placeholder.
    mutating func bind(_ value: any PostgresBindable) -> String {
        parameters.append(value)
        return "$\(parameters.count)"
    }

    private mutating func condition(_ filter: QueryFilter) -> String? {
        guard !filter.comparator.isNegative else { return nil }
        switch filter.field {
        case .system(let system):
            let column: String
            let kind: Kind
            switch system {
            case .recordName: (column, kind) = ("r.record_name", .text)
            case .createdUserRecordName: (column, kind) = ("r.created_by", .text)
            case .modifiedUserRecordName: (column, kind) = ("r.modified_by", .text)
            case .createdTimestamp: (column, kind) = ("r.created_at", .integer)
            case .modifiedTimestamp: (column, kind) = ("r.modified_at", .integer)
            case .share, .parent: return nil
            }
            // NB: record names compare by code point, as in the index.
            let collated = kind == .text ? column + " COLLATE \"C\"" : column
            return comparison(filter, column: collated, kind: kind)
        case .field(let name, let type):
            guard let kind = Kind(type) else { return nil }
            let column = "f." + kind.column
            let probe = { (this: inout PostgresCandidateSQL, test: String) -> String in
                "EXISTS (SELECT 1 FROM field_index f WHERE f.zone_id = r.zone_id AND f.zone_id = ANY($1::bigint[]) AND f.record_name = r.record_name"
                    + " AND f.record_type = $2 AND f.field_name = \(this.bind(name)) AND \(test))"
            }
            if filter.comparator == .near {
                guard case .location(let centre) = filter.value, let meters = filter.distance else { return nil }
                return probe(&self, nearBox(GeoDistance.BoundingBox(latitude: centre.latitude, longitude: centre.longitude, meters: meters)))
            }
            if filter.comparator == .listContainsAll {
                let values = PostgresQueryEvaluator.indexValues(filter.value)
                guard !values.isEmpty, values.allSatisfy({ Kind($0) == kind }) else { return nil }
                var probes: [String] = []
                for value in values.prefix(4) {
                    let bound = bind(kind.bindable(Self.stored(value)))
                    probes.append(probe(&self, "\(column) = \(bound)"))
                }
                return probes.joined(separator: " AND ")
            }
            guard let test = comparison(filter, column: column, kind: kind, prefixed: true) else { return nil }
            return probe(&self, test)
        }
    }

    /// A positive comparison of `column` with the filter's value, when the value has the column's kind.
    ///
    /// `prefixed`: the column is `field_index`'s, whose strings are prefixes (``PostgresIndexedText``).
    private mutating func comparison(_ filter: QueryFilter, column: String, kind: Kind, prefixed: Bool = false) -> String? {
        let scalar = PostgresQueryEvaluator.indexValue(filter.value)
        switch filter.comparator {
        case .equals, .listContains, .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals:
            guard let scalar, Kind(scalar) == kind else { return nil }
            let operators: [StratusWire.Comparator: String] = [
                .equals: "=", .listContains: "=", .lessThan: "<", .lessThanOrEquals: "<=", .greaterThan: ">", .greaterThanOrEquals: ">=",
            ]
            guard let symbol = operators[filter.comparator] else { return nil }
            if prefixed, case .text(let text) = scalar {
                let test = PostgresIndexedText.comparison(symbol, text)
                return "\(column) \(test.symbol) \(bind(test.operand))"
            }
            return "\(column) \(symbol) \(bind(kind.bindable(scalar)))"
        case .in, .listContainsAny:
            let values = PostgresQueryEvaluator.indexValues(filter.value).map { prefixed ? Self.stored($0) : $0 }
            guard !values.isEmpty, values.allSatisfy({ Kind($0) == kind }) else { return nil }
            return "\(column) = ANY(\(bind(kind.array(values)))::\(kind.sqlType)[])"
        case .beginsWith, .listMemberBeginsWith:
            guard kind == .text, let whole = filter.value.stringValue else { return nil }
            let prefix = prefixed ? PostgresIndexedText.beginning(whole) : whole
            guard let upper = SQLTextOrder.prefixUpperBound(prefix) else { return "\(column) >= \(bind(prefix))" }
            return "\(column) >= \(bind(prefix)) AND \(column) < \(bind(upper))"
        default:
            return nil
        }
    }

    /// A value as `field_index` stores it: a string by its prefix (``PostgresIndexedText``).
    private static func stored(_ value: QueryCursorValue) -> QueryCursorValue {
        if case .text(let text) = value { .text(PostgresIndexedText.prefix(text)) } else { value }
    }

    /// The bounding box of a `NEAR` filter on `f.vr` (latitude) and `f.vr2` (longitude): a superset of the
    /// points within the distance, which the exact check then measures.
    private mutating func nearBox(_ box: GeoDistance.BoundingBox) -> String {
        var test = "f.vr BETWEEN \(bind(box.minimumLatitude)) AND \(bind(box.maximumLatitude)) AND f.vr2 IS NOT NULL"
        if box.crossesAntimeridian {
            test += " AND (f.vr2 >= \(bind(box.minimumLongitude)) OR f.vr2 <= \(bind(box.maximumLongitude)))"
        } else if !box.allLongitudes {
            test += " AND f.vr2 BETWEEN \(bind(box.minimumLongitude)) AND \(bind(box.maximumLongitude))"
        }
        return test
    }

    /// Where a kind of value is stored.
    enum Kind: Equatable {
        case integer, real, text

        init?(_ type: FieldType) {
            switch type {
            case .string, .reference, .stringList, .referenceList: self = .text
            case .int64, .timestamp, .int64List, .timestampList: self = .integer
            case .double, .location, .doubleList, .locationList: self = .real
            default: return nil
            }
        }

        init?(_ value: QueryCursorValue) {
            switch value {
            case .integer: self = .integer
            case .real: self = .real
            case .text: self = .text
            case .bytes: return nil
            }
        }

        var column: String {
            switch self {
            case .integer: "vi"
            case .real: "vr"
            case .text: "vt"
            }
        }

        var sqlType: String {
            switch self {
            case .integer: "bigint"
            case .real: "float8"
            case .text: "text"
            }
        }

        func bindable(_ value: QueryCursorValue) -> any PostgresBindable {
            switch value {
            case .integer(let integer): integer
            case .real(let real): real
            case .text(let text): text
            case .bytes(let data): data
            }
        }

        func array(_ values: [QueryCursorValue]) -> PostgresArray {
            switch self {
            case .integer: PostgresArray(values.map { value -> Int64? in if case .integer(let x) = value { x } else { nil } })
            case .real: PostgresArray(values.map { value -> Double? in if case .real(let x) = value { x } else { nil } })
            case .text: PostgresArray(values.map { value -> String? in if case .text(let x) = value { x } else { nil } })
            }
        }
    }
}
