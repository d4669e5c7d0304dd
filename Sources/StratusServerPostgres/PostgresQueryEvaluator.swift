import Foundation
import StratusPostgres
import StratusServer
import StratusWire

/// Runs a ``QueryPlan`` on PostgreSQL: the candidates come from the indexes (`records_by_type`
/// narrowed by `field_index` probes for the positive filters and by the read policy, see
/// ``PostgresCandidateSQL``), and the exact filters are applied in memory with the same rules
/// as the SQLite query compiler.
///
/// Correct for every comparator, and bounded by ``QueryPlan/candidateLimit``. Plans whose order
/// PostgreSQL computes (every order but a sort by BYTES: ``PostgresQueryKeyset``) read candidates
/// in order, in chunks of about a page, after the cursor; a page whose candidates the exact
/// filters keep dropping ends once the limit is read, early, with a cursor at the last candidate
/// read. Other plans read their candidates at once and are sorted and paged in memory, so more
/// candidates than the limit is a `BAD_REQUEST`.
///
/// Values compare as SQLite's query index stores them: integers and reals numerically,
/// text by UTF-8 bytes, bytes by bytes. A missing value sorts before every present one.
struct PostgresQueryEvaluator {
    let plan: QueryPlan

    /// One value as the index sees it.
    typealias Value = QueryCursorValue

    /// The most candidates one chunk of an ordered read asks for.
    static let maximumChunk = 20_000

    func run(_ tx: PostgresStoreTransaction) throws -> QueryPage {
        guard !plan.zoneRowIDs.isEmpty, plan.limit > 0 else { return QueryPage(records: [], next: nil) }
        if let keyset = PostgresQueryKeyset(plan: plan) { return try orderedPage(tx, keyset) }
        return try sortedPage(tx)
    }

    private func matchesAll(_ record: StoredRecord) -> Bool {
        plan.allFilters.allSatisfy { matches($0, record) }
    }

    /// A page in PostgreSQL's order: candidates are read in order in growing chunks, after the
    /// cursor, until `limit + 1` match, none are left, or ``QueryPlan/candidateLimit`` were read.
    private func orderedPage(_ tx: PostgresStoreTransaction, _ keyset: PostgresQueryKeyset) throws -> QueryPage {
        let budget = max(plan.candidateLimit, 1)
        var kept: [(record: StoredRecord, cursor: QueryCursor)] = []
        var after = plan.after
        var chunk = min(plan.limit + 1, budget)
        var read = 0
        let keyColumn = PostgresStoreTransaction.recordColumnCount
        while true {
            var candidates = PostgresCandidateSQL(plan: plan)
            keyset.restrict(&candidates, singleZone: plan.zoneRowIDs.count == 1 ? plan.zoneRowIDs[0] : nil, after: after, limit: chunk)
            let rows = try tx.query(candidates.sql, candidates.parameters)
            read += rows.count
            tx.queryStatistics?.count(rows: rows.count)
            var last: QueryCursor?
            for row in rows {
                let record = try PostgresStoreTransaction.record(row)
                let cursor = QueryCursor(sortValues: try keyset.values(of: row, from: keyColumn), zoneRowID: record.zoneRowID, recordName: record.recordName)
                last = cursor
                if matchesAll(record) { kept.append((record, cursor)) }
            }
            if kept.count > plan.limit {
                return QueryPage(records: kept.prefix(plan.limit).map(\.record), next: kept[plan.limit - 1].cursor)
            }
            guard rows.count == chunk, let last else { return QueryPage(records: kept.map(\.record), next: nil) }
            // The budget is spent: a short page, continuing after the last candidate read (one the reader may see).
            if read >= budget { return QueryPage(records: kept.map(\.record), next: last) }
            after = last
            chunk = min(chunk * 4, Self.maximumChunk, budget - read)
        }
    }

    /// A page sorted in memory, for orders PostgreSQL does not compute: every candidate is read,
    /// at most ``QueryPlan/candidateLimit`` of them.
    ///
    /// - Throws: ``ServiceError`` `BAD_REQUEST` when the query has more candidates than that.
    private func sortedPage(_ tx: PostgresStoreTransaction) throws -> QueryPage {
        var candidates = PostgresCandidateSQL(plan: plan)
        candidates.append(" LIMIT \(candidates.bind(plan.candidateLimit + 1))")
        let fetched = try tx.query(candidates.sql, candidates.parameters)
        tx.queryStatistics?.count(rows: fetched.count)
        guard fetched.count <= plan.candidateLimit else {
            throw ServiceError.badRequest(
                "this query needs an index: \(unorderedSort) is sorted in memory on this server, and more than \(plan.candidateLimit) records"
                    + " are candidates; add a filter on an indexed field that keeps fewer, or sort by another field"
            )
        }
        var rows: [(record: StoredRecord, keys: [Value?])] = try fetched.map(PostgresStoreTransaction.record).filter(matchesAll).map { record in
            (record, plan.sorts.map { sortKey($0, record) })
        }
        let ascending = plan.sorts.first?.ascending ?? true
        rows.sort { order($0.record, $0.keys, $1.record, $1.keys, ascending: ascending) == .orderedAscending }
        if let after = plan.after {
            rows.removeAll { row in
                let position = compareToCursor(row.record, row.keys, after, ascending: ascending)
                return position != .orderedDescending
            }
        }
        var next: QueryCursor?
        if rows.count > plan.limit {
            rows.removeLast(rows.count - plan.limit)
            if let last = rows.last {
                next = QueryCursor(sortValues: last.keys, zoneRowID: last.record.zoneRowID, recordName: last.record.recordName)
            }
        }
        return QueryPage(records: rows.map(\.record), next: next)
    }

    /// The sort PostgreSQL does not order, for an error message.
    private var unorderedSort: String {
        for sort in plan.sorts {
            if case .field(let name, let type) = sort.field, PostgresCandidateSQL.Kind(type) == nil {
                return "the sort by \(type.rawValue) field '\(name)'"
            }
        }
        return "its sort order"
    }

    // MARK: Order

    /// Compares two rows in the plan's order (sort keys, then zone and name in the first key's direction).
    private func order(_ a: StoredRecord, _ aKeys: [Value?], _ b: StoredRecord, _ bKeys: [Value?], ascending: Bool) -> ComparisonResult {
        for (index, sort) in plan.sorts.enumerated() {
            let result = Self.compare(aKeys[index], bKeys[index])
            if result != .orderedSame { return sort.ascending ? result : result.reversed }
        }
        var result = Self.compare(.integer(a.zoneRowID), .integer(b.zoneRowID))
        if result == .orderedSame { result = Self.compare(.text(a.recordName), .text(b.recordName)) }
        return ascending ? result : result.reversed
    }

    /// Where a row is relative to the cursor: `.orderedDescending` when it comes strictly after.
    private func compareToCursor(_ record: StoredRecord, _ keys: [Value?], _ cursor: QueryCursor, ascending: Bool) -> ComparisonResult {
        for (index, sort) in plan.sorts.enumerated() {
            let result = Self.compare(keys[index], index < cursor.sortValues.count ? cursor.sortValues[index] : nil)
            if result != .orderedSame { return sort.ascending ? result : result.reversed }
        }
        var result = Self.compare(.integer(record.zoneRowID), .integer(cursor.zoneRowID))
        if result == .orderedSame { result = Self.compare(.text(record.recordName), .text(cursor.recordName)) }
        return ascending ? result : result.reversed
    }

    private func sortKey(_ sort: QuerySort, _ record: StoredRecord) -> Value? {
        switch sort.field {
        case .system(let system):
            return Self.systemValue(system, record)
        case .field(let name, _):
            guard let value = record.fields[name] else { return nil }
            if let point = sort.relativeLocation {
                guard case .location(let here) = Self.members(value).first else { return nil }
                return .real(
                    GeoDistance.meters(latitude1: here.latitude, longitude1: here.longitude, latitude2: point.latitude, longitude2: point.longitude)
                )
            }
            return Self.indexValues(value).first
        }
    }

    /// NULL first; integers and reals numerically; text by UTF-8 bytes; bytes by bytes.
    static func compare(_ a: Value?, _ b: Value?) -> ComparisonResult {
        switch (a, b) {
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedAscending
        case (_, nil): return .orderedDescending
        case (.integer(let x)?, .integer(let y)?): return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
        case (.integer(let x)?, .real(let y)?): return compare(Double(x), y)
        case (.real(let x)?, .integer(let y)?): return compare(x, Double(y))
        case (.real(let x)?, .real(let y)?): return compare(x, y)
        case (.text(let x)?, .text(let y)?): return compare(Array(x.utf8), Array(y.utf8))
        case (.bytes(let x)?, .bytes(let y)?): return compare(Array(x), Array(y))
        // Storage classes order as in SQLite: numbers < text < bytes.
        case (.integer?, _), (.real?, _): return .orderedAscending
        case (.text?, .bytes?): return .orderedAscending
        default: return .orderedDescending
        }
    }

    private static func compare(_ x: Double, _ y: Double) -> ComparisonResult {
        x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
    }

    private static func compare(_ x: [UInt8], _ y: [UInt8]) -> ComparisonResult {
        for (p, q) in zip(x, y) where p != q { return p < q ? .orderedAscending : .orderedDescending }
        return x.count < y.count ? .orderedAscending : x.count > y.count ? .orderedDescending : .orderedSame
    }

    // MARK: Values

    static func systemValue(_ system: SystemFieldName, _ record: StoredRecord) -> Value? {
        switch system {
        case .recordName: .text(record.recordName)
        case .createdTimestamp: .integer(record.created.timestamp)
        case .modifiedTimestamp: .integer(record.modified.timestamp)
        case .createdUserRecordName: .text(record.created.userRecordName)
        case .modifiedUserRecordName: .text(record.modified.userRecordName)
        case .share, .parent: nil
        }
    }

    /// The members of a value (a scalar is a list of one).
    static func members(_ value: FieldValue) -> [FieldValue] {
        switch value {
        case .stringList(let list): list.map(FieldValue.string)
        case .int64List(let list): list.map(FieldValue.int64)
        case .doubleList(let list): list.map(FieldValue.double)
        case .timestampList(let list): list.map(FieldValue.timestamp)
        case .bytesList(let list): list.map(FieldValue.bytes)
        case .referenceList(let list): list.map(FieldValue.reference)
        case .locationList(let list): list.map(FieldValue.location)
        case .assetList, .emptyList: []
        default: [value]
        }
    }

    /// A scalar as the index stores it (a location by its latitude); `nil` for what is not indexed.
    static func indexValue(_ value: FieldValue) -> Value? {
        switch value {
        case .string(let text): .text(text)
        case .int64(let integer): .integer(integer)
        case .double(let double): .real(double)
        case .timestamp(let timestamp): .integer(timestamp.millisecondsSince1970)
        case .bytes(let data): .bytes(data)
        case .reference(let reference): .text(reference.recordName)
        case .location(let location): .real(location.latitude)
        default: nil
        }
    }

    static func indexValues(_ value: FieldValue) -> [Value] {
        members(value).compactMap(indexValue)
    }
}

extension ComparisonResult {
    var reversed: ComparisonResult {
        switch self {
        case .orderedAscending: .orderedDescending
        case .orderedDescending: .orderedAscending
        case .orderedSame: .orderedSame
        }
    }
}
