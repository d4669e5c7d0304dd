import StratusSQLite

/// A piece of SQL and the values of its `?` parameters, in order.
///
/// Fragments concatenate with their arguments, so a compiler can assemble a
/// statement from parts without counting parameters.
struct SQLFragment {
    var sql: String
    var arguments: [SQLiteValue]

    init(_ sql: String, _ arguments: [SQLiteValue] = []) {
        self.sql = sql
        self.arguments = arguments
    }

    /// A fragment that is always true.
    static let alwaysTrue = SQLFragment("1")
    /// A fragment that is always false.
    static let alwaysFalse = SQLFragment("0")

    mutating func append(_ other: SQLFragment) {
        sql += other.sql
        arguments += other.arguments
    }

    mutating func append(_ text: String, _ values: SQLiteValue...) {
        sql += text
        arguments += values
    }

    static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        SQLFragment(lhs.sql + rhs.sql, lhs.arguments + rhs.arguments)
    }

    /// `parts` joined by `separator`, each in parentheses; `empty` when there are none.
    static func joined(_ parts: [SQLFragment], separator: String, empty: SQLFragment) -> SQLFragment {
        guard parts.count > 1 else { return parts.first ?? empty }
        var result = SQLFragment("")
        for (index, part) in parts.enumerated() {
            if index > 0 { result.sql += separator }
            result.append(SQLFragment("(" + part.sql + ")", part.arguments))
        }
        return result
    }

    /// `NOT (fragment)`.
    var negated: SQLFragment { SQLFragment("NOT (" + sql + ")", arguments) }

    /// `(?, ?, …)` binding `values`.
    static func list(_ values: [SQLiteValue]) -> SQLFragment {
        SQLFragment("(" + Array(repeating: "?", count: values.count).joined(separator: ", ") + ")", values)
    }

    /// `column = ?` for one zone, `column IN (?, …)` for several.
    static func zones(_ column: String, _ zoneRowIDs: [Int64]) -> SQLFragment {
        if zoneRowIDs.count == 1 { return SQLFragment(column + " = ?", [.integer(zoneRowIDs[0])]) }
        return SQLFragment(column + " IN ") + list(zoneRowIDs.map { .integer($0) })
    }
}
