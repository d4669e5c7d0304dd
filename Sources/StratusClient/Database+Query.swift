public import StratusWire

extension Database {
    /// One page of query results.
    public struct QueryPage: Sendable {
        /// Each matching record, or the error the server reported for it, in the server's order.
        public var matchResults: [(RecordID, Result<Record, StratusError>)]
        /// Where to continue; `nil` on the last page.
        public var queryCursor: QueryCursor?

        /// The records of the page; throws the first per-record error.
        ///
        /// - Returns: The records, in order.
        /// - Throws: The first ``StratusError`` in ``matchResults``.
        public func records() throws(StratusError) -> [Record] {
            try matchResults.map { (match) throws(StratusError) -> Record in try match.1.get() }
        }
    }

    /// Runs a query and returns its first page.
    ///
    /// - Parameters:
    ///   - query: What to search for.
    ///   - zoneID: The zone to search; the default zone when `nil`.
    ///   - desiredKeys: The fields to fetch; `nil` fetches all.
    ///   - resultsLimit: The most records in the page (at most 200).
    /// - Returns: The page and a cursor when more results exist.
    /// - Throws: ``StratusError``.
    ///
    /// CloudKit reference: records/query.
    public func records(
        matching query: Query, inZoneWith zoneID: ZoneID? = nil, desiredKeys: [String]? = nil,
        resultsLimit: Int = Database.maximumResultsPerResponse
    ) async throws -> QueryPage {
        try await queryPage(query, zoneID: zoneID ?? .defaultZone, marker: nil, desiredKeys: desiredKeys, resultsLimit: resultsLimit)
    }

    /// Fetches the page after `cursor`.
    ///
    /// - Parameters:
    ///   - cursor: The cursor of the previous page.
    ///   - desiredKeys: The fields to fetch; `nil` fetches all.
    ///   - resultsLimit: The most records in the page (at most 200).
    /// - Returns: The page and a cursor when more results exist.
    /// - Throws: ``StratusError``.
    ///
    /// CloudKit reference: records/query (`continuationMarker`).
    public func records(
        continuingMatchFrom cursor: QueryCursor, desiredKeys: [String]? = nil,
        resultsLimit: Int = Database.maximumResultsPerResponse
    ) async throws -> QueryPage {
        try await queryPage(
            cursor.query, zoneID: cursor.zoneID, marker: cursor.continuationMarker, desiredKeys: desiredKeys,
            resultsLimit: resultsLimit)
    }

    /// Every record matching `query`, fetched page by page as the sequence is iterated.
    ///
    /// ```swift
    /// for try await note in database.allRecords(matching: Query(recordType: "Note")) {
    ///     print(note["title"] as String? ?? "")
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - query: What to search for.
    ///   - zoneID: The zone to search; the default zone when `nil`.
    ///   - desiredKeys: The fields to fetch; `nil` fetches all.
    ///   - pageSize: Records per request (at most 200).
    /// - Returns: An asynchronous sequence of records; iteration throws the first error.
    public func allRecords(
        matching query: Query, inZoneWith zoneID: ZoneID? = nil, desiredKeys: [String]? = nil,
        pageSize: Int = Database.maximumResultsPerResponse
    ) -> QueryResults {
        QueryResults(database: self, query: query, zoneID: zoneID ?? .defaultZone, desiredKeys: desiredKeys, pageSize: pageSize)
    }

    func queryPage(
        _ query: Query, zoneID: ZoneID, marker: ContinuationMarker?, desiredKeys: [String]?, resultsLimit: Int
    ) async throws -> QueryPage {
        let request = RecordsQuery.Request(
            query: query, zoneID: Self.wireZone(zoneID), resultsLimit: min(max(1, resultsLimit), Self.maximumResultsPerResponse),
            continuationMarker: marker, desiredKeys: desiredKeys)
        let response = try await client.send(RecordsQuery.self, request, database: scope, idempotent: true)
        var matches: [(RecordID, Result<Record, StratusError>)] = []
        matches.reserveCapacity(response.records.count)
        for entry in response.records {
            switch entry {
            case .record(let wire):
                let zone = wire.zoneID ?? zoneID
                guard let name = wire.recordName else {
                    throw StratusError(.serverResponseLost, "records/query returned a record without a recordName")
                }
                let id = RecordID(recordName: name, zoneID: zone)
                matches.append((id, Self.recordResult(entry, recordID: id, clientRecord: nil)))
            case .error(let error):
                let id = RecordID(recordName: error.recordName ?? "", zoneID: zoneID)
                matches.append((id, .failure(StratusError(error, recordID: id))))
            }
        }
        let cursor = response.continuationMarker.map { QueryCursor(query: query, zoneID: zoneID, continuationMarker: $0) }
        return QueryPage(matchResults: matches, queryCursor: cursor)
    }
}

/// The records matching a query, fetched a page at a time while iterated.
///
/// Made by ``Database/allRecords(matching:inZoneWith:desiredKeys:pageSize:)``.
public struct QueryResults: AsyncSequence, Sendable {
    /// Records in the server's order.
    public typealias Element = Record
    /// The first error met.
    public typealias Failure = any Error

    let database: Database
    let query: Query
    let zoneID: ZoneID
    let desiredKeys: [String]?
    let pageSize: Int

    /// Starts a new iteration from the first page.
    public func makeAsyncIterator() -> Iterator {
        Iterator(results: self)
    }

    /// Fetches pages on demand.
    public struct Iterator: AsyncIteratorProtocol {
        let results: QueryResults
        var buffer: [(RecordID, Result<Record, StratusError>)] = []
        var index = 0
        var cursor: QueryCursor?
        var started = false

        init(results: QueryResults) { self.results = results }

        /// The next record, fetching the next page when the current one is used up.
        ///
        /// - Returns: The record, or `nil` after the last one.
        /// - Throws: ``StratusError`` for a failed request or a per-record error.
        public mutating func next() async throws -> Record? {
            while index == buffer.count {
                let page: Database.QueryPage
                if !started {
                    started = true
                    page = try await results.database.queryPage(
                        results.query, zoneID: results.zoneID, marker: nil, desiredKeys: results.desiredKeys,
                        resultsLimit: results.pageSize)
                } else if let cursor {
                    page = try await results.database.records(
                        continuingMatchFrom: cursor, desiredKeys: results.desiredKeys, resultsLimit: results.pageSize)
                } else {
                    return nil
                }
                if page.matchResults.isEmpty, let next = page.queryCursor, next == cursor {
                    throw StratusError(.serverResponseLost, "records/query returned an empty page and the same continuation marker")
                }
                buffer = page.matchResults
                index = 0
                cursor = page.queryCursor
            }
            defer { index += 1 }
            return try buffer[index].1.get()
        }
    }
}
