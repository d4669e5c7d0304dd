public import StratusWire

/// What to search for: a record type, filters (ANDed) and sorts (`CKQuery` without string predicates).
///
/// ```swift
/// let query = Query(recordType: "Note",
///                   filters: [.equals("status", "open"), .listContains("tags", "home")],
///                   sorts: [.descending("rank")])
/// for try await note in database.allRecords(matching: query, inZoneWith: inbox) { … }
/// ```
public struct Query: Hashable, Sendable {
    /// The record type to search.
    public var recordType: String
    /// Conditions every result meets.
    public var filters: [QueryFilter]
    /// The order of results.
    public var sorts: [QuerySort]

    /// Creates a query.
    ///
    /// - Parameters:
    ///   - recordType: The record type to search.
    ///   - filters: Conditions every result meets (none: every record of the type).
    ///   - sorts: The order of results.
    public init(recordType: String, filters: [QueryFilter] = [], sorts: [QuerySort] = []) {
        self.recordType = recordType
        self.filters = filters
        self.sorts = sorts
    }

    /// The wire Query dictionary (`filterBy`/`sortBy` omitted when empty).
    public var wire: StratusWire.Query {
        StratusWire.Query(
            recordType: recordType, filterBy: filters.isEmpty ? nil : filters.map(\.wire),
            sortBy: sorts.isEmpty ? nil : sorts.map(\.wire))
    }
}

/// Where a query stopped: pass it to ``Database/records(continuingMatchFrom:desiredKeys:resultsLimit:)``.
public struct QueryCursor: Hashable, Sendable {
    /// The query being paged.
    public let query: Query
    /// The zone searched.
    public let zoneID: ZoneID
    /// The server's opaque marker.
    public let continuationMarker: ContinuationMarker
}
