import Foundation
import StratusServer
import StratusWire

/// Filters, with the semantics of the SQLite query index (see `SQLiteQueryFilter`).
extension PostgresQueryEvaluator {
    func matches(_ filter: QueryFilter, _ record: StoredRecord) -> Bool {
        let comparator = filter.comparator
        switch filter.field {
        case .system(let system):
            let held = Self.systemValue(system, record).map { Self.condition(comparator, filter.value)($0) } ?? false
            return comparator.isNegative ? !held : held
        case .field(let name, _):
            let value = record.fields[name]
            switch comparator {
            case .containsAnyTokens, .containsAllTokens:
                let have: Set<String>
                switch value {
                case .string(let text)?: have = Set(SearchTokenizer.tokens(in: text))
                case .stringList(let texts)?: have = Set(SearchTokenizer.tokens(in: texts))
                default: have = []
                }
                let wanted = Set(Self.indexValues(filter.value).compactMap { if case .text(let token) = $0 { token } else { nil } })
                if comparator == .containsAnyTokens { return !have.isDisjoint(with: wanted) }
                return !wanted.isEmpty && wanted.isSubset(of: have)
            case .listContainsAll, .notListContainsAll:
                let wanted = Self.indexValues(filter.value)
                guard !wanted.isEmpty else { return comparator == .listContainsAll }
                let have = value.map(Self.indexValues) ?? []
                let all = wanted.allSatisfy { want in have.contains { Self.compare($0, want) == .orderedSame } }
                return comparator == .listContainsAll ? all : !all
            case .near:
                guard case .location(let centre) = filter.value, let meters = filter.distance, let value else { return false }
                return Self.members(value).contains { member in
                    guard case .location(let point) = member else { return false }
                    return GeoDistance.meters(
                        latitude1: point.latitude, longitude1: point.longitude, latitude2: centre.latitude, longitude2: centre.longitude
                    ) <= meters
                }
            default:
                let condition = Self.condition(comparator, filter.value)
                let held = (value.map(Self.indexValues) ?? []).contains(where: condition)
                return comparator.isNegative ? !held : held
            }
        }
    }

    /// The positive condition of a value comparator on one indexed value.
    static func condition(_ comparator: StratusWire.Comparator, _ value: FieldValue) -> @Sendable (Value) -> Bool {
        switch comparator {
        case .equals, .notEquals, .listContains, .notListContains:
            guard let bound = indexValue(value) else { return { _ in false } }
            return { compare($0, bound) == .orderedSame }
        case .lessThan:
            guard let bound = indexValue(value) else { return { _ in false } }
            return { compare($0, bound) == .orderedAscending }
        case .lessThanOrEquals:
            guard let bound = indexValue(value) else { return { _ in false } }
            return { compare($0, bound) != .orderedDescending }
        case .greaterThan:
            guard let bound = indexValue(value) else { return { _ in false } }
            return { compare($0, bound) == .orderedDescending }
        case .greaterThanOrEquals:
            guard let bound = indexValue(value) else { return { _ in false } }
            return { compare($0, bound) != .orderedAscending }
        case .in, .notIn, .listContainsAny, .notListContainsAny:
            let members = indexValues(value)
            return { candidate in members.contains { compare(candidate, $0) == .orderedSame } }
        case .beginsWith, .notBeginsWith, .listMemberBeginsWith, .notListMemberBeginsWith:
            let prefix = Array((value.stringValue ?? "").utf8)
            return { candidate in
                guard case .text(let text) = candidate else { return false }
                return Array(text.utf8).starts(with: prefix)
            }
        default:
            return { _ in false }
        }
    }
}
