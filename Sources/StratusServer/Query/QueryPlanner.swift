import Foundation
import StratusWire

/// Checks a `records/query` Query dictionary against the schema and turns it into a ``QueryPlan``.
///
/// Pure: no storage, no clock. Every field named must exist on the record type
/// and carry the index the operation needs (queryable for filters, sortable for
/// sort descriptors, searchable for token search); every comparator must suit
/// the field's type; every value is normalized to the field's element type
/// (see ``QueryPlan``). Anything else is a `BAD_REQUEST` whose reason names the
/// field, comparator and types involved.
///
/// ```swift
/// let plan = try QueryPlanner(schema: schema, environment: .development).plan(query, limit: 200)
/// ```
struct QueryPlanner {
    let schema: Schema
    let environment: Environment

    /// The most values an `IN`, `NOT_IN` or `LIST_*` filter may list.
    static let maximumListValues = 1000
    /// The most filters a query may have.
    static let maximumFilters = 32

    /// A plan for `query` with no zones yet and no cursor.
    ///
    /// - Throws: ``ServiceError`` `BAD_REQUEST` for an unknown record type or field, a field
    ///   without the needed index, a comparator that does not suit the field, or a value of the wrong type.
    func plan(_ query: Query, limit: Int) throws(ServiceError) -> QueryPlan {
        guard let recordType = schema.recordTypes[query.recordType] else {
            throw .badRequest("did not find record type '\(query.recordType)' in the \(environment.rawValue) schema")
        }
        let filters = query.filterBy ?? []
        guard filters.count <= Self.maximumFilters else {
            throw .badRequest("a query may have at most \(Self.maximumFilters) filters; this one has \(filters.count)")
        }
        var planned: [QueryFilter] = []
        for filter in filters {
            planned.append(try plan(filter, recordTypeName: query.recordType, recordType: recordType))
        }
        var sorts: [QuerySort] = []
        for sort in query.sortBy ?? [] {
            sorts.append(try plan(sort, recordTypeName: query.recordType, recordType: recordType))
        }
        return QueryPlan(zoneRowIDs: [], recordType: query.recordType, filters: planned, sorts: sorts, limit: limit)
    }

    // MARK: Filters

    private func plan(_ filter: Filter, recordTypeName: String, recordType: RecordTypeSchema) throws(ServiceError) -> QueryFilter {
        if filter.distance != nil, filter.comparator != .near {
            throw .badRequest("'distance' applies only to the NEAR comparator, not to \(filter.comparator.rawValue)")
        }
        switch filter.target {
        case .system(let system):
            return try planSystem(filter, system)
        case .field(let name):
            guard let field = recordType.fields[name] else {
                throw .badRequest("Unknown field '\(name)' in record type '\(recordTypeName)'")
            }
            return try planField(filter, name: name, field: field)
        }
    }

    private func planField(_ filter: Filter, name: String, field: FieldSchema) throws(ServiceError) -> QueryFilter {
        let comparator = filter.comparator
        let type = field.type
        let target = QueryField.field(name: name, type: type)
        if comparator == .containsAllTokens || comparator == .containsAnyTokens {
            return try planTokenSearch(filter, name: name, field: field)
        }
        guard field.queryable else { throw .badRequest("Field '\(name)' is not marked queryable") }
        if let element = type.listElementType {
            return try planListField(filter, name: name, type: type, element: element)
        }
        switch (type, comparator) {
        case (.location, .near):
            guard let distance = filter.distance else {
                throw .badRequest("NEAR on field '\(name)' needs 'distance', the radius in meters")
            }
            guard distance.isFinite, distance >= 0 else {
                throw .badRequest("NEAR on field '\(name)' needs a distance of 0 meters or more; got \(distance)")
            }
            let value = try coerce(filter.fieldValue, to: .location, name, comparator)
            if case .location(let centre) = value {
                guard (-90...90).contains(centre.latitude), (-180...180).contains(centre.longitude) else {
                    throw .badRequest("NEAR on field '\(name)' needs a latitude from -90 to 90 and a longitude from -180 to 180")
                }
            }
            return QueryFilter(field: target, comparator: comparator, value: value, distance: distance)
        case (.asset, _), (.location, _), (.unknownList, _):
            throw notApplicable(comparator, name, type)
        case (_, .equals), (_, .notEquals):
            return QueryFilter(field: target, comparator: comparator, value: try coerce(filter.fieldValue, to: type, name, comparator))
        case (_, .in), (_, .notIn):
            return QueryFilter(field: target, comparator: comparator, value: try coerceList(filter.fieldValue, to: type, name, comparator))
        case (.string, .lessThan), (.string, .lessThanOrEquals), (.string, .greaterThan), (.string, .greaterThanOrEquals),
            (.int64, .lessThan), (.int64, .lessThanOrEquals), (.int64, .greaterThan), (.int64, .greaterThanOrEquals),
            (.double, .lessThan), (.double, .lessThanOrEquals), (.double, .greaterThan), (.double, .greaterThanOrEquals),
            (.timestamp, .lessThan), (.timestamp, .lessThanOrEquals), (.timestamp, .greaterThan), (.timestamp, .greaterThanOrEquals),
            (.string, .beginsWith), (.string, .notBeginsWith):
            return QueryFilter(field: target, comparator: comparator, value: try coerce(filter.fieldValue, to: type, name, comparator))
        default:
            throw notApplicable(comparator, name, type)
        }
    }

    /// `CONTAINS_ALL_TOKENS` / `CONTAINS_ANY_TOKENS` on a searchable `STRING` or `STRING_LIST` field.
    private func planTokenSearch(_ filter: Filter, name: String, field: FieldSchema) throws(ServiceError) -> QueryFilter {
        let comparator = filter.comparator
        guard field.type == .string || field.type == .stringList else { throw notApplicable(comparator, name, field.type) }
        guard field.searchable else { throw .badRequest("Field '\(name)' is not marked searchable") }
        guard case .string(let text) = filter.fieldValue else {
            throw .badRequest("\(comparator.rawValue) on field '\(name)' needs a STRING value; got \(filter.fieldValue.type.rawValue)")
        }
        let tokens = SearchTokenizer.tokens(in: text)
        guard !tokens.isEmpty else {
            throw .badRequest("\(comparator.rawValue) on field '\(name)' needs a value with at least one letter or digit; '\(text)' has no tokens")
        }
        return QueryFilter(field: .field(name: name, type: field.type), comparator: comparator, value: .stringList(tokens))
    }

    /// A comparator on a queryable list field of `element`s.
    private func planListField(_ filter: Filter, name: String, type: FieldType, element: FieldType) throws(ServiceError) -> QueryFilter {
        let comparator = filter.comparator
        let target = QueryField.field(name: name, type: type)
        guard element != .asset, element != .location else { throw notApplicable(comparator, name, type) }
        switch comparator {
        case .listContains, .notListContains:
            return QueryFilter(field: target, comparator: comparator, value: try coerce(filter.fieldValue, to: element, name, comparator))
        case .listContainsAny, .notListContainsAny, .listContainsAll, .notListContainsAll:
            return QueryFilter(field: target, comparator: comparator, value: try coerceList(filter.fieldValue, to: element, name, comparator))
        case .listMemberBeginsWith, .notListMemberBeginsWith:
            guard element == .string else { throw notApplicable(comparator, name, type) }
            return QueryFilter(field: target, comparator: comparator, value: try coerce(filter.fieldValue, to: .string, name, comparator))
        default:
            throw notApplicable(comparator, name, type)
        }
    }

    private func planSystem(_ filter: Filter, _ system: SystemFieldName) throws(ServiceError) -> QueryFilter {
        let comparator = filter.comparator
        let element = try Self.systemType(system)
        let name = system.rawValue
        let allowed: Set<StratusWire.Comparator> =
            element == .timestamp
            ? [.equals, .notEquals, .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals, .in, .notIn]
            : [.equals, .notEquals, .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals, .in, .notIn, .beginsWith, .notBeginsWith]
        guard allowed.contains(comparator) else {
            throw .badRequest("Comparator \(comparator.rawValue) cannot be used with system field '\(name)'")
        }
        let value: FieldValue
        switch comparator {
        case .in, .notIn: value = try coerceList(filter.fieldValue, to: element, name, comparator)
        default: value = try coerce(filter.fieldValue, to: element, name, comparator)
        }
        return QueryFilter(field: .system(system), comparator: comparator, value: value)
    }

    /// The normalized value type of a system field: TIMESTAMP for times, STRING for names.
    static func systemType(_ system: SystemFieldName) throws(ServiceError) -> FieldType {
        switch system {
        case .recordName, .createdUserRecordName, .modifiedUserRecordName: return .string
        case .createdTimestamp, .modifiedTimestamp: return .timestamp
        case .share, .parent:
            throw .badRequest("systemFieldName '\(system.rawValue)' is not supported in queries by this server")
        }
    }

    // MARK: Sorts

    private func plan(_ sort: Sort, recordTypeName: String, recordType: RecordTypeSchema) throws(ServiceError) -> QuerySort {
        switch sort.target {
        case .system(let system):
            _ = try Self.systemType(system)
            guard sort.relativeLocation == nil else {
                throw .badRequest("'relativeLocation' applies only to sorting by a LOCATION field, not by system field '\(system.rawValue)'")
            }
            return QuerySort(field: .system(system), ascending: sort.isAscending)
        case .field(let name):
            guard let field = recordType.fields[name] else {
                throw .badRequest("Unknown field '\(name)' in record type '\(recordTypeName)'")
            }
            guard field.sortable else { throw .badRequest("Field '\(name)' is not marked sortable") }
            let target = QueryField.field(name: name, type: field.type)
            switch field.type {
            case .location:
                guard let relative = sort.relativeLocation else {
                    throw .badRequest("sorting by LOCATION field '\(name)' needs 'relativeLocation', the point distances are measured from")
                }
                guard case .location(let point) = relative else {
                    throw .badRequest("'relativeLocation' must be a LOCATION value; got \(relative.type.rawValue)")
                }
                return QuerySort(field: target, ascending: sort.isAscending, relativeLocation: point)
            case .asset, .unknownList:
                throw .badRequest("Field '\(name)' of type \(field.type.rawValue) cannot be used to sort")
            case let type where type.isList:
                throw .badRequest("Field '\(name)' of type \(type.rawValue) cannot be used to sort")
            default:
                guard sort.relativeLocation == nil else {
                    throw .badRequest("'relativeLocation' applies only to LOCATION fields; field '\(name)' is \(field.type.rawValue)")
                }
                return QuerySort(field: target, ascending: sort.isAscending)
            }
        }
    }

    // MARK: Values

    private func notApplicable(_ comparator: StratusWire.Comparator, _ name: String, _ type: FieldType) -> ServiceError {
        .badRequest("Comparator \(comparator.rawValue) cannot be used with field '\(name)' of type \(type.rawValue)")
    }

    /// `value` as a scalar of `type`, accepting the untagged forms clients send.
    private func coerce(_ value: FieldValue, to type: FieldType, _ name: String, _ comparator: StratusWire.Comparator) throws(ServiceError) -> FieldValue {
        if let coerced = Self.scalar(value, as: type) { return coerced }
        if value.type.isList {
            throw .badRequest("\(comparator.rawValue) on field '\(name)' needs a single \(type.rawValue) value, not a list")
        }
        throw .badRequest("Invalid value for \(comparator.rawValue) on field '\(name)': expected \(type.rawValue), got \(value.type.rawValue)")
    }

    /// `value` as a list of `element`, such as an INT64_LIST for `IN` on an INT64 field.
    private func coerceList(_ value: FieldValue, to element: FieldType, _ name: String, _ comparator: StratusWire.Comparator) throws(ServiceError) -> FieldValue
    {
        guard let elements = Self.elements(of: value) else {
            let tag = element.listType?.rawValue ?? "a list"
            throw .badRequest("\(comparator.rawValue) on field '\(name)' needs a list value (\(tag)); got \(value.type.rawValue)")
        }
        guard elements.count <= Self.maximumListValues else {
            throw .badRequest("\(comparator.rawValue) on field '\(name)' may list at most \(Self.maximumListValues) values; got \(elements.count)")
        }
        var coerced: [FieldValue] = []
        for item in elements {
            guard let scalar = Self.scalar(item, as: element) else {
                throw .badRequest(
                    "Invalid value for \(comparator.rawValue) on field '\(name)': expected a list of \(element.rawValue), got \(value.type.rawValue)"
                )
            }
            coerced.append(scalar)
        }
        return Self.list(coerced, of: element)
    }

    /// A scalar converted to `type` when the wire form allows it (untagged numbers, names, base64).
    static func scalar(_ value: FieldValue, as type: FieldType) -> FieldValue? {
        switch (type, value) {
        case (.string, .string), (.int64, .int64), (.double, .double), (.timestamp, .timestamp), (.bytes, .bytes),
            (.reference, .reference), (.location, .location):
            return value
        case (.string, .reference(let reference)): return .string(reference.recordName)
        case (.double, .int64(let integer)): return .double(Double(integer))
        case (.timestamp, .int64(let milliseconds)): return .timestamp(Timestamp(millisecondsSince1970: milliseconds))
        case (.int64, .timestamp(let timestamp)): return .int64(timestamp.millisecondsSince1970)
        case (.reference, .string(let name)): return .reference(Reference(recordName: name))
        case (.bytes, .string(let text)):
            return Data(base64Encoded: text).map { .bytes($0) }
        default:
            return nil
        }
    }

    /// The members of a list value as scalars; `nil` for a scalar.
    static func elements(of value: FieldValue) -> [FieldValue]? {
        switch value {
        case .stringList(let values): values.map { .string($0) }
        case .int64List(let values): values.map { .int64($0) }
        case .doubleList(let values): values.map { .double($0) }
        case .timestampList(let values): values.map { .timestamp($0) }
        case .bytesList(let values): values.map { .bytes($0) }
        case .referenceList(let values): values.map { .reference($0) }
        case .assetList(let values): values.map { .asset($0) }
        case .locationList(let values): values.map { .location($0) }
        case .emptyList: []
        default: nil
        }
    }

    /// A typed list of scalars of `element` (which ``scalar(_:as:)`` produced).
    static func list(_ values: [FieldValue], of element: FieldType) -> FieldValue {
        switch element {
        case .string: .stringList(values.compactMap(\.stringValue))
        case .int64: .int64List(values.compactMap(\.int64Value))
        case .double: .doubleList(values.compactMap(\.doubleValue))
        case .timestamp: .timestampList(values.compactMap(\.timestampValue))
        case .bytes: .bytesList(values.compactMap(\.bytesValue))
        case .reference: .referenceList(values.compactMap(\.referenceValue))
        case .location: .locationList(values.compactMap(\.locationValue))
        default: .emptyList
        }
    }
}
