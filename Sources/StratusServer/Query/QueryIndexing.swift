import StratusWire

/// The indexes a query needs, so development can turn them on just in time.
///
/// Only existing fields whose type suits the use are considered; anything else
/// is left for ``QueryPlanner`` to refuse with its usual reason.
enum QueryIndexing {
    /// One index turned on, for logs: `Note.title (searchable)`.
    struct Change: Hashable, Sendable, CustomStringConvertible {
        var recordType: String
        var field: String
        var index: String
        var description: String { "\(recordType).\(field) (\(index))" }
    }

    /// `schema` with every index `query` needs turned on, and what changed; `nil` when nothing had to.
    static func enable(for query: Query, in schema: Schema) -> (schema: Schema, changes: [Change])? {
        guard var recordType = schema.recordTypes[query.recordType] else { return nil }
        var changes: [Change] = []
        func turnOn(_ name: String, _ index: String, _ flag: WritableKeyPath<FieldSchema, Bool>, when suits: (FieldType) -> Bool) {
            guard var field = recordType.fields[name], suits(field.type), !field[keyPath: flag] else { return }
            field[keyPath: flag] = true
            recordType.fields[name] = field
            changes.append(Change(recordType: query.recordType, field: name, index: index))
        }
        for filter in query.filterBy ?? [] {
            guard case .field(let name) = filter.target else { continue }
            switch filter.comparator {
            case .containsAllTokens, .containsAnyTokens:
                turnOn(name, "searchable", \.searchable) { $0 == .string || $0 == .stringList }
            default:
                turnOn(name, "queryable", \.queryable) { $0 != .asset && $0 != .assetList && $0 != .unknownList }
            }
        }
        for sort in query.sortBy ?? [] {
            guard case .field(let name) = sort.target else { continue }
            turnOn(name, "sortable", \.sortable) { !$0.isList && $0 != .asset }
        }
        guard !changes.isEmpty else { return nil }
        var updated = schema
        updated.recordTypes[query.recordType] = recordType
        return (updated, changes)
    }
}
