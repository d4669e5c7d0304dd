import StratusSQLite

/// Compiles resolved predicates and sort keys to SQL over the fetched entity's table (`t0`) and `LEFT JOIN`s for key paths.
///
/// A condition SQLite cannot evaluate exactly as Swift does (decimal comparisons,
/// diacritic-insensitive or non-ASCII case-insensitive matching) or that goes through a
/// relationship to an entity with unsaved changes is left out: the compiled condition is
/// then a superset, reported as inexact, and the caller filters the rows in memory.
struct SQLPredicateCompiler {
    /// A compiled condition and its arguments, in order.
    struct Fragment {
        var sql: String
        var arguments: [SQLiteValue]
    }

    let entity: Entity
    let model: ResolvedModel
    /// Entities with unsaved changes in the context chain: hops into them are not compiled.
    let dirtyEntities: Set<String>
    private(set) var joins: [String] = []
    private var aliases: [String: String] = [:]
    /// The prefix of this compiler's table aliases: `t` for the fetch (`t0` its entity), longer in subqueries.
    private let aliasPrefix: String
    private var subqueryCount = 0

    init(entity: Entity, model: ResolvedModel, dirtyEntities: Set<String>, aliasPrefix: String = "t") {
        self.entity = entity
        self.model = model
        self.dirtyEntities = dirtyEntities
        self.aliasPrefix = aliasPrefix
    }

    private var baseAlias: String { "\(aliasPrefix)0" }

    /// The condition for `predicate` (`nil` for no condition) and whether it selects exactly the matching rows.
    mutating func compile(_ predicate: ResolvedPredicate) -> (fragment: Fragment?, exact: Bool) {
        switch predicate {
        case .constant(let value):
            return (Fragment(sql: value ? "1" : "0", arguments: []), true)
        case .comparison(let path, let op, let operand):
            guard let fragment = comparison(path, op, operand) else { return (nil, false) }
            return (fragment, true)
        case .isIn(let path, let operands):
            guard let fragment = membership(path, operands) else { return (nil, false) }
            return (fragment, true)
        case .string(let path, let op, let pattern, let options):
            guard let fragment = stringMatch(path, op, pattern, options) else { return (nil, false) }
            return (fragment, true)
        case .and(let predicates):
            var parts: [Fragment] = []
            var exact = true
            for predicate in predicates {
                let (fragment, partExact) = compile(predicate)
                exact = exact && partExact
                if let fragment { parts.append(fragment) }
            }
            guard !parts.isEmpty else { return (nil, exact) }
            return (Fragment(sql: "(" + parts.map(\.sql).joined(separator: " AND ") + ")", arguments: parts.flatMap(\.arguments)), exact)
        case .or(let predicates):
            var parts: [Fragment] = []
            var exact = true
            for predicate in predicates {
                let (fragment, partExact) = compile(predicate)
                guard let fragment else { return (nil, false) }
                exact = exact && partExact
                parts.append(fragment)
            }
            guard !parts.isEmpty else { return (Fragment(sql: "0", arguments: []), true) }
            return (Fragment(sql: "(" + parts.map(\.sql).joined(separator: " OR ") + ")", arguments: parts.flatMap(\.arguments)), exact)
        case .not(let predicate):
            let (fragment, exact) = compile(predicate)
            guard let fragment, exact else { return (nil, false) }
            return (Fragment(sql: "NOT " + fragment.sql, arguments: fragment.arguments), true)
        case .any(let relationship, let predicate):
            guard let fragment = exists(relationship, predicate) else { return (nil, false) }
            return (fragment, true)
        }
    }

    /// `EXISTS` over the related rows of a to-many relationship; `nil` if the relationship's rows or the
    /// condition cannot be answered exactly in SQL (unsaved changes on either side, an inexact condition).
    private mutating func exists(_ relationship: Relationship, _ predicate: ResolvedPredicate) -> Fragment? {
        let destination = model.entity(relationship.destinationEntityName)
        guard !dirtyEntities.contains(destination.name), !dirtyEntities.contains(entity.name) else { return nil }
        subqueryCount += 1
        var inner = SQLPredicateCompiler(
            entity: destination, model: model, dirtyEntities: dirtyEntities, aliasPrefix: "\(aliasPrefix)s\(subqueryCount)_")
        let (condition, exact) = inner.compile(predicate)
        guard exact else { return nil }
        let related = inner.baseAlias
        var sql = "EXISTS (SELECT 1 FROM "
        let link: String
        switch relationship.storage {
        case .inverseForeignKey(let column):
            sql += "\(quote(destination.name)) AS \(related)"
            link = "\(related).\(quote(column)) = \(baseAlias).\(StoreSchema.primaryKeyColumn)"
        case .joinTable(let join):
            let joinAlias = "\(inner.aliasPrefix)j"
            sql +=
                "\(quote(join.table)) AS \(joinAlias) JOIN \(quote(destination.name)) AS \(related) "
                + "ON \(related).\(StoreSchema.primaryKeyColumn) = \(joinAlias).\(join.targetColumn)"
            link = "\(joinAlias).\(join.sourceColumn) = \(baseAlias).\(StoreSchema.primaryKeyColumn)"
        case .foreignKey:
            return nil
        }
        for join in inner.joins {
            sql += " " + join
        }
        sql += " WHERE " + link
        if let condition { sql += " AND " + condition.sql }
        sql += ")"
        return Fragment(sql: sql, arguments: condition?.arguments ?? [])
    }

    /// `ORDER BY` terms for `sorts`, or `nil` if one of them cannot be sorted in SQL.
    mutating func orderBy(_ sorts: [ResolvedSort]) -> [String]? {
        var terms: [String] = []
        for sort in sorts {
            guard case .attribute(_, let attribute) = sort.path.terminal, attribute.type.isOrderedInSQL,
                let column = column(sort.path)
            else { return nil }
            terms.append(column + (sort.ascending ? " ASC" : " DESC"))
        }
        return terms
    }

    // MARK: Pieces

    /// The SQL expression of a path's value, adding joins; `nil` when a hop reaches an entity with unsaved changes.
    private mutating func column(_ path: ResolvedPath) -> String? {
        var alias = baseAlias
        var prefix = ""
        for hop in path.hops {
            let destination = hop.relationship.destinationEntityName
            guard !dirtyEntities.contains(destination) else { return nil }
            prefix += (prefix.isEmpty ? "" : ".") + hop.relationship.name
            if let existing = aliases[prefix] {
                alias = existing
            } else {
                let next = "\(aliasPrefix)\(aliases.count + 1)"
                joins.append(
                    "LEFT JOIN \(quote(destination)) AS \(next) ON \(next).\(StoreSchema.primaryKeyColumn) = \(alias).\(quote(hop.relationship.name))"
                )
                aliases[prefix] = next
                alias = next
            }
        }
        switch path.terminal {
        case .attribute(_, let attribute): return "\(alias).\(quote(attribute.name))"
        case .toOne(_, let relationship): return "\(alias).\(quote(relationship.name))"
        case .identity: return "\(alias).\(StoreSchema.primaryKeyColumn)"
        }
    }

    private func isSQLComparable(_ path: ResolvedPath) -> Bool {
        if case .attribute(_, let attribute) = path.terminal { return attribute.type.isOrderedInSQL }
        return true
    }

    /// The SQL value of an operand: `nil` for an object that cannot be stored yet (a temporary ID).
    private func sqlValue(_ operand: PropertyValue) -> SQLiteValue? {
        switch operand {
        case .attribute(let value): value?.sqliteValue ?? .null
        case .toOne(let id): id.map { id in id.primaryKey.map(SQLiteValue.integer) } ?? .null
        case .toMany: nil
        }
    }

    private mutating func comparison(
        _ path: ResolvedPath, _ op: FetchPredicate.ComparisonOperator, _ operand: PropertyValue
    ) -> Fragment? {
        guard isSQLComparable(path), let column = column(path) else { return nil }
        guard let value = sqlValue(operand) else {
            // A temporary ID matches no stored row.
            return Fragment(sql: op == .notEqual ? "1" : "0", arguments: [])
        }
        let sqlOperator =
            switch op {
            case .equal: "IS"
            case .notEqual: "IS NOT"
            case .less: "<"
            case .lessOrEqual: "<="
            case .greater: ">"
            case .greaterOrEqual: ">="
            }
        return Fragment(sql: "\(column) \(sqlOperator) ?", arguments: [value])
    }

    private mutating func membership(_ path: ResolvedPath, _ operands: [PropertyValue]) -> Fragment? {
        guard isSQLComparable(path), let column = column(path) else { return nil }
        let values = operands.compactMap(sqlValue).filter { !$0.isNull }
        guard !values.isEmpty else { return Fragment(sql: "0", arguments: []) }
        let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
        return Fragment(sql: "\(column) IN (\(placeholders))", arguments: values)
    }

    private mutating func stringMatch(
        _ path: ResolvedPath, _ op: FetchPredicate.StringOperator, _ pattern: String, _ options: StringComparisonOptions
    ) -> Fragment? {
        guard !options.contains(.diacriticInsensitive) else { return nil }
        if options.contains(.caseInsensitive) {
            // SQLite's LIKE folds ASCII letters only; with a non-ASCII pattern, match in memory.
            guard pattern.utf8.allSatisfy({ $0 < 0x80 }), let column = column(path) else { return nil }
            let escaped = Self.escapeLike(pattern)
            let like =
                switch op {
                case .beginsWith: escaped + "%"
                case .contains: "%" + escaped + "%"
                case .endsWith: "%" + escaped
                }
            return Fragment(sql: "\(column) LIKE ? ESCAPE '\\'", arguments: [.text(like)])
        }
        guard let column = column(path) else { return nil }
        let escaped = Self.escapeGlob(pattern)
        let glob =
            switch op {
            case .beginsWith: escaped + "*"
            case .contains: "*" + escaped + "*"
            case .endsWith: "*" + escaped
            }
        return Fragment(sql: "\(column) GLOB ?", arguments: [.text(glob)])
    }

    private static func escapeLike(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "\\" || character == "%" || character == "_" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    private static func escapeGlob(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "*": escaped += "[*]"
            case "?": escaped += "[?]"
            case "[": escaped += "[[]"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
