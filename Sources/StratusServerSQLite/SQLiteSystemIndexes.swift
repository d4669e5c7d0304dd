import StratusServer
import StratusSQLite
import StratusWire

/// The indexes on the records table for system fields, created the first time a query needs one.
///
/// Most apps never filter or sort on who created a record, and every index
/// costs every write; so each exists only once a query has used its field.
enum SQLiteSystemIndexes {
    struct Index: Hashable, Sendable {
        var name: String
        var column: String
    }

    static let created = Index(name: "records_by_created", column: "created_at")
    static let modified = Index(name: "records_by_modified", column: "modified_at")
    static let creator = Index(name: "records_by_creator", column: "created_by")
    static let modifier = Index(name: "records_by_modifier", column: "modified_by")
    static let all = [created, modified, creator, modifier]

    /// The index a system field needs, or `nil` when `records_by_type` (always present) serves it.
    static func index(for field: SystemFieldName) -> Index? {
        switch field {
        case .createdTimestamp: created
        case .modifiedTimestamp: modified
        case .createdUserRecordName: creator
        case .modifiedUserRecordName: modifier
        case .recordName, .share, .parent: nil
        }
    }

    /// The indexes `plan` reads.
    static func needed(by plan: QueryPlan) -> Set<Index> {
        var needed: Set<Index> = []
        for field in plan.allFilters.map(\.field) + plan.sorts.map(\.field) {
            if case .system(let system) = field, let index = index(for: system) { needed.insert(index) }
        }
        return needed
    }

    /// Creates `index` unless it exists.
    static func create(_ index: Index, _ db: SQLiteConnection) throws {
        try db.execute(
            sql: "CREATE INDEX IF NOT EXISTS \(index.name) ON records (zone_id, record_type, \(index.column), record_name) WHERE deleted = 0"
        )
    }
}
