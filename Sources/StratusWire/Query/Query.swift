/// What to search for: the Query dictionary.
///
/// Filters are ANDed; sorts apply in order.
///
/// ```swift
/// let query = Query(
///     recordType: "Note",
///     filterBy: [Filter(.field("tags"), .listContains, .string("work"))],
///     sortBy: [Sort(.system(.createdTimestamp), ascending: false)])
/// ```
///
/// CloudKit reference: Types ("Query Dictionary"); Apple's CloudKit Web Services Reference: “Query, filter, comparator, sort”.
public struct Query: Hashable, Sendable, Codable {
    /// The record type to search.
    public var recordType: String
    /// Conditions, implicitly ANDed.
    public var filterBy: [Filter]?
    /// Orderings, applied in order.
    public var sortBy: [Sort]?

    /// Creates a query.
    ///
    /// - Parameters:
    ///   - recordType: The record type to search.
    ///   - filterBy: Conditions.
    ///   - sortBy: Orderings.
    public init(recordType: String, filterBy: [Filter]? = nil, sortBy: [Sort]? = nil) {
        self.recordType = recordType
        self.filterBy = filterBy
        self.sortBy = sortBy
    }
}
