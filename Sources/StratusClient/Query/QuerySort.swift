public import StratusWire

/// One sort key of a query; a query's sorts apply in order.
///
/// ```swift
/// let sorts: [QuerySort] = [.descending("rank"), .ascending(QueryKey<Date>.createdTimestamp),
///                           .distance("place", from: here)]
/// ```
public struct QuerySort: Hashable, Sendable {
    /// The wire sort descriptor.
    public let wire: Sort

    /// Wraps a wire sort descriptor.
    ///
    /// - Parameter wire: The sort descriptor.
    public init(_ wire: Sort) {
        self.wire = wire
    }

    /// Sorts by a record field, smallest first.
    public static func ascending(_ fieldName: String) -> QuerySort {
        QuerySort(Sort(.field(fieldName), ascending: true))
    }
    /// Sorts by a record field, largest first.
    public static func descending(_ fieldName: String) -> QuerySort {
        QuerySort(Sort(.field(fieldName), ascending: false))
    }
    /// Sorts by a key (record or system field), smallest first.
    public static func ascending<V>(_ key: QueryKey<V>) -> QuerySort {
        QuerySort(Sort(key.target, ascending: true))
    }
    /// Sorts by a key (record or system field), largest first.
    public static func descending<V>(_ key: QueryKey<V>) -> QuerySort {
        QuerySort(Sort(key.target, ascending: false))
    }
    /// Sorts by distance of a location field from `location`, nearest first (`relativeLocation`).
    public static func distance(_ key: QueryKey<Location>, from location: Location) -> QuerySort {
        QuerySort(Sort(key.target, ascending: true, relativeLocation: .location(location)))
    }
}
