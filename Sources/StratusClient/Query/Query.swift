public import StratusWire

extension StratusWire.Query {
    /// Creates a query from typed filters (ANDed) and sorts: `CKQuery` without string predicates.
    ///
    /// ```swift
    /// let query = Query(recordType: "Note",
    ///                   filters: [.equals("status", "open"), .listContains("tags", "home")],
    ///                   sorts: [.descending("rank")])
    /// for try await note in database.allRecords(matching: query, inZoneWith: inbox) { print(note["title"] as String?) }
    /// ```
    ///
    /// - Parameters:
    ///   - recordType: The record type to search.
    ///   - filters: Conditions every result meets (`filterBy`, omitted when empty).
    ///   - sorts: The order of results (`sortBy`, omitted when empty).
    public init(recordType: String, filters: [QueryFilter], sorts: [QuerySort] = []) {
        self.init(
            recordType: recordType, filterBy: filters.isEmpty ? nil : filters.map(\.wire),
            sortBy: sorts.isEmpty ? nil : sorts.map(\.wire))
    }
}

/// Where a query stopped: pass it to ``Database/records(continuingMatchFrom:desiredKeys:resultsLimit:)``.
///
/// A cursor is `Codable`: persist it to continue the query in a later run (as `stratus import
/// --from` does), for as long as the server accepts its marker.
public struct QueryCursor: Hashable, Sendable, Codable {
    /// The query being paged.
    public let query: StratusWire.Query
    /// The zone searched.
    public let zoneID: ZoneID
    /// The server's opaque marker.
    public let continuationMarker: ContinuationMarker
}
