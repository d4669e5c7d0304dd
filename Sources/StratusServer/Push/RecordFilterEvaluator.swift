import Foundation
import StratusWire

/// Evaluates query filters against one stored record, in memory.
///
/// Query subscriptions test every changed record with this, so it follows the
/// comparator table without needing an index, with the query index's rules
/// (`SQLiteQueryFilter`): a positive comparator on a field the record lacks
/// never matches, and a `NOT_…` comparator keeps exactly what its positive one
/// does not, a record without the field among them, so a subscription fires
/// for exactly the records its query returns. Numbers, timestamps and their untagged forms compare by
/// value; references compare by record name.
enum RecordFilterEvaluator {
    /// Whether `record` satisfies every filter.
    static func matches(_ filters: [Filter], _ record: StoredRecord) -> Bool {
        filters.allSatisfy { matches($0, record) }
    }

    static func matches(_ filter: Filter, _ record: StoredRecord) -> Bool {
        let positive = filter.comparator.negatedComparator ?? filter.comparator
        let held = value(of: filter.target, in: record).map { holds(positive, $0, filter) } ?? false
        return filter.comparator.isNegative ? !held : held
    }

    /// Whether a positive comparator holds for a field's value.
    private static func holds(_ comparator: StratusWire.Comparator, _ field: FieldValue, _ filter: Filter) -> Bool {
        let value = filter.fieldValue
        switch comparator {
        case .equals: return equal(field, value)
        case .lessThan: return compare(field, value) == .orderedAscending
        case .lessThanOrEquals: return compare(field, value).map { $0 != .orderedDescending } ?? false
        case .greaterThan: return compare(field, value) == .orderedDescending
        case .greaterThanOrEquals: return compare(field, value).map { $0 != .orderedAscending } ?? false
        case .in: return elements(of: value).contains { equal(field, $0) }
        case .beginsWith: return text(field).map { prefix in text(value).map { prefix.hasPrefix($0) } ?? false } ?? false
        case .containsAllTokens:
            let want = tokens(value)
            return !want.isEmpty && want.isSubset(of: tokens(field))
        case .containsAnyTokens:
            return !tokens(field).isDisjoint(with: tokens(value))
        case .near:
            guard case .location(let here) = field, case .location(let centre) = value, let distance = filter.distance else { return false }
            return meters(here, centre) <= distance
        case .listContains: return elements(of: field).contains { equal($0, value) }
        case .listContainsAny: return containsAny(field, value)
        case .listContainsAll: return containsAll(field, value)
        case .listMemberBeginsWith: return memberBeginsWith(field, value)
        default: return false
        }
    }

    /// The value a filter tests: a field, or a system field in field-value form.
    static func value(of target: FieldTarget, in record: StoredRecord) -> FieldValue? {
        switch target {
        case .field(let name): return record.fields[name]
        case .system(let system):
            switch system {
            case .recordName: return .string(record.recordName)
            case .createdUserRecordName: return .reference(Reference(recordName: record.created.userRecordName))
            case .modifiedUserRecordName: return .reference(Reference(recordName: record.modified.userRecordName))
            case .createdTimestamp: return .timestamp(Timestamp(millisecondsSince1970: record.created.timestamp))
            case .modifiedTimestamp: return .timestamp(Timestamp(millisecondsSince1970: record.modified.timestamp))
            case .share, .parent: return nil
            }
        }
    }

    // MARK: Scalars

    private enum Scalar {
        case integer(Int64)
        case real(Double)
        case text(String)
        case bytes(Data)
        case location(Location)
    }

    private static func scalar(_ value: FieldValue) -> Scalar? {
        switch value {
        case .string(let string): .text(string)
        case .int64(let integer): .integer(integer)
        case .double(let real): .real(real)
        case .timestamp(let timestamp): .integer(timestamp.millisecondsSince1970)
        case .reference(let reference): .text(reference.recordName)
        case .bytes(let bytes): .bytes(bytes)
        case .location(let location): .location(location)
        case .asset(let asset): asset.fileChecksum.map { .text($0) }
        default: nil
        }
    }

    private static func compare(_ lhs: FieldValue, _ rhs: FieldValue) -> ComparisonResult? {
        guard let left = scalar(lhs), let right = scalar(rhs) else { return nil }
        switch (left, right) {
        case (.integer(let a), .integer(let b)): return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        case (.integer(let a), .real(let b)): return order(Double(a), b)
        case (.real(let a), .integer(let b)): return order(a, Double(b))
        case (.real(let a), .real(let b)): return order(a, b)
        case (.text(let a), .text(let b)): return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
        default: return nil
        }
    }

    private static func order(_ a: Double, _ b: Double) -> ComparisonResult? {
        if a < b { return .orderedAscending }
        if a > b { return .orderedDescending }
        return a == b ? .orderedSame : nil
    }

    private static func equal(_ lhs: FieldValue, _ rhs: FieldValue) -> Bool {
        if let order = compare(lhs, rhs) { return order == .orderedSame }
        switch (scalar(lhs), scalar(rhs)) {
        case (.bytes(let a)?, .bytes(let b)?): return a == b
        case (.location(let a)?, .location(let b)?): return a.latitude == b.latitude && a.longitude == b.longitude
        default: return false
        }
    }

    private static func text(_ value: FieldValue) -> String? {
        if case .text(let string)? = scalar(value) { return string }
        return nil
    }

    // MARK: Lists

    /// The members of a list value (a scalar counts as a list of one).
    static func elements(of value: FieldValue) -> [FieldValue] {
        switch value {
        case .stringList(let list): list.map(FieldValue.string)
        case .int64List(let list): list.map(FieldValue.int64)
        case .doubleList(let list): list.map(FieldValue.double)
        case .timestampList(let list): list.map(FieldValue.timestamp)
        case .bytesList(let list): list.map(FieldValue.bytes)
        case .referenceList(let list): list.map(FieldValue.reference)
        case .assetList(let list): list.map(FieldValue.asset)
        case .locationList(let list): list.map(FieldValue.location)
        case .emptyList: []
        default: [value]
        }
    }

    private static func containsAny(_ field: FieldValue, _ value: FieldValue) -> Bool {
        let members = elements(of: field)
        return elements(of: value).contains { wanted in members.contains { equal($0, wanted) } }
    }

    private static func containsAll(_ field: FieldValue, _ value: FieldValue) -> Bool {
        let members = elements(of: field)
        return elements(of: value).allSatisfy { wanted in members.contains { equal($0, wanted) } }
    }

    private static func memberBeginsWith(_ field: FieldValue, _ value: FieldValue) -> Bool {
        guard let prefix = text(value) else { return false }
        return elements(of: field).contains { text($0)?.hasPrefix(prefix) ?? false }
    }

    // MARK: Text and places

    /// The search tokens of a string or a string list (``SearchTokenizer``, as the query index has them).
    static func tokens(_ value: FieldValue) -> Set<String> {
        switch value {
        case .string(let text): Set(SearchTokenizer.tokens(in: text))
        case .stringList(let texts): Set(SearchTokenizer.tokens(in: texts))
        default: []
        }
    }

    /// The great-circle distance in meters (haversine, mean Earth radius).
    static func meters(_ a: Location, _ b: Location) -> Double {
        let radians = Double.pi / 180
        let dLat = (b.latitude - a.latitude) * radians
        let dLon = (b.longitude - a.longitude) * radians
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.latitude * radians) * cos(b.latitude * radians) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * 6_371_008.8 * asin(min(1, sqrt(h)))
    }
}
