public import StratusWire

/// One condition of a query, built from typed keys and values; conditions of a query are ANDed.
///
/// Each factory stands for one comparator of Apple's CloudKit Web Services Reference: “Query, filter, comparator, sort”, so a filter never needs parsing,
/// and each value is sent with its type tag (`IN` lists carry `*_LIST` tags).
///
/// ```swift
/// let filters: [QueryFilter] = [
///     .equals("status", "open"),
///     .greaterThanOrEquals("rank", 3),
///     .in("owner", ["ann", "bob"]),
///     .listContainsAny("tags", ["home", "work"]),
///     .near("place", Location(latitude: 48.85, longitude: 2.35), radius: 1_000),
///     .lessThan(.createdTimestamp, cutoff),
/// ]
/// ```
public struct QueryFilter: Hashable, Sendable {
    /// The wire filter dictionary.
    public let wire: Filter

    /// Wraps a wire filter.
    ///
    /// - Parameter wire: The filter dictionary.
    public init(_ wire: Filter) {
        self.wire = wire
    }

    private init<V>(_ key: QueryKey<V>, _ comparator: Comparator, _ value: FieldValue, distance: Double? = nil) {
        self.init(Filter(key.target, comparator, value, distance: distance))
    }

    // MARK: Equality and order

    /// `EQUALS`: the field equals `value`.
    public static func equals<V>(_ key: QueryKey<V>, _ value: V) -> QueryFilter {
        QueryFilter(key, .equals, value.fieldValue)
    }
    /// `NOT_EQUALS`: the field differs from `value`.
    public static func notEquals<V>(_ key: QueryKey<V>, _ value: V) -> QueryFilter {
        QueryFilter(key, .notEquals, value.fieldValue)
    }
    /// `LESS_THAN`.
    public static func lessThan<V: QueryOrderable>(_ key: QueryKey<V>, _ value: V) -> QueryFilter {
        QueryFilter(key, .lessThan, value.fieldValue)
    }
    /// `LESS_THAN_OR_EQUALS`.
    public static func lessThanOrEquals<V: QueryOrderable>(_ key: QueryKey<V>, _ value: V) -> QueryFilter {
        QueryFilter(key, .lessThanOrEquals, value.fieldValue)
    }
    /// `GREATER_THAN`.
    public static func greaterThan<V: QueryOrderable>(_ key: QueryKey<V>, _ value: V) -> QueryFilter {
        QueryFilter(key, .greaterThan, value.fieldValue)
    }
    /// `GREATER_THAN_OR_EQUALS`.
    public static func greaterThanOrEquals<V: QueryOrderable>(_ key: QueryKey<V>, _ value: V) -> QueryFilter {
        QueryFilter(key, .greaterThanOrEquals, value.fieldValue)
    }

    // MARK: Membership

    /// `IN`: the field is one of `values` (sent as a tagged list).
    public static func `in`<V: RecordListElement>(_ key: QueryKey<V>, _ values: [V]) -> QueryFilter {
        QueryFilter(key, .in, V.listFieldValue(values))
    }
    /// `NOT_IN`: the field is none of `values`.
    public static func notIn<V: RecordListElement>(_ key: QueryKey<V>, _ values: [V]) -> QueryFilter {
        QueryFilter(key, .notIn, V.listFieldValue(values))
    }

    // MARK: Strings

    /// `BEGINS_WITH`: the string field starts with `prefix`.
    public static func beginsWith(_ key: QueryKey<String>, _ prefix: String) -> QueryFilter {
        QueryFilter(key, .beginsWith, .string(prefix))
    }
    /// `NOT_BEGINS_WITH`.
    public static func notBeginsWith(_ key: QueryKey<String>, _ prefix: String) -> QueryFilter {
        QueryFilter(key, .notBeginsWith, .string(prefix))
    }
    /// `CONTAINS_ALL_TOKENS`: the searchable field holds every token of `text`.
    public static func containsAllTokens(_ key: QueryKey<String>, _ text: String) -> QueryFilter {
        QueryFilter(key, .containsAllTokens, .string(text))
    }
    /// `CONTAINS_ANY_TOKENS`: the searchable field holds some token of `text`.
    public static func containsAnyTokens(_ key: QueryKey<String>, _ text: String) -> QueryFilter {
        QueryFilter(key, .containsAnyTokens, .string(text))
    }

    // MARK: Locations

    /// `NEAR`: the location field is within `radius` meters of `center`.
    public static func near(_ key: QueryKey<Location>, _ center: Location, radius: Double) -> QueryFilter {
        QueryFilter(key, .near, .location(center), distance: radius)
    }

    // MARK: Lists

    /// `LIST_CONTAINS`: the list field contains `element`.
    public static func listContains<E: RecordListElement>(_ key: QueryKey<[E]>, _ element: E) -> QueryFilter {
        QueryFilter(key, .listContains, element.fieldValue)
    }
    /// `NOT_LIST_CONTAINS`: the list field lacks `element`.
    public static func notListContains<E: RecordListElement>(_ key: QueryKey<[E]>, _ element: E) -> QueryFilter {
        QueryFilter(key, .notListContains, element.fieldValue)
    }
    /// `LIST_CONTAINS_ANY`: the list field contains some of `elements`.
    public static func listContainsAny<E: RecordListElement>(_ key: QueryKey<[E]>, _ elements: [E]) -> QueryFilter {
        QueryFilter(key, .listContainsAny, E.listFieldValue(elements))
    }
    /// `NOT_LIST_CONTAINS_ANY`: the list field contains none of `elements`.
    public static func notListContainsAny<E: RecordListElement>(_ key: QueryKey<[E]>, _ elements: [E]) -> QueryFilter {
        QueryFilter(key, .notListContainsAny, E.listFieldValue(elements))
    }
    /// `LIST_CONTAINS_ALL`: the list field contains every one of `elements`.
    public static func listContainsAll<E: RecordListElement>(_ key: QueryKey<[E]>, _ elements: [E]) -> QueryFilter {
        QueryFilter(key, .listContainsAll, E.listFieldValue(elements))
    }
    /// `NOT_LIST_CONTAINS_ALL`: the list field lacks at least one of `elements`.
    public static func notListContainsAll<E: RecordListElement>(_ key: QueryKey<[E]>, _ elements: [E]) -> QueryFilter {
        QueryFilter(key, .notListContainsAll, E.listFieldValue(elements))
    }
    /// `LIST_MEMBER_BEGINS_WITH`: some element of the string list starts with `prefix`.
    public static func listMemberBeginsWith(_ key: QueryKey<[String]>, _ prefix: String) -> QueryFilter {
        QueryFilter(key, .listMemberBeginsWith, .string(prefix))
    }
    /// `NOT_LIST_MEMBER_BEGINS_WITH`: no element of the string list starts with `prefix`.
    public static func notListMemberBeginsWith(_ key: QueryKey<[String]>, _ prefix: String) -> QueryFilter {
        QueryFilter(key, .notListMemberBeginsWith, .string(prefix))
    }
}
