public import Foundation
public import StratusWire

/// A validated query, ready for a back end to run on its indexes.
///
/// The service builds it from a `records/query` request and the schema (so
/// every field named is known, typed and indexed); the back end translates it
/// into its own query language. Paging is by keyset: ``after`` holds the sort
/// values and name of the last record returned, so pages stay correct while
/// records change.
///
/// Values are normalized by the planner (see `QueryPlanner`): a filter's value
/// always has the field's element type (TIMESTAMP, never a bare INT64; a record
/// name as STRING for `recordName` and the user system fields), list-valued
/// comparators carry a typed list, and the token comparators carry the query's
/// tokens as a STRING_LIST (see ``SearchTokenizer``).
///
/// Order: the sort descriptors in turn, then zone row and record name as tie
/// breakers, both in the direction of the first sort descriptor (ascending when
/// there is none). A missing value sorts before every present value (it is the
/// smallest), so it comes first ascending and last descending.
///
/// The read policy is part of the plan: with ``createdBy`` set, records of other
/// creators do not exist for the query. A back end applies it inside the query, in the
/// same statement as the filters and before the limit and the cursor (``allFilters``
/// lists it first), so pages are full, cursors only ever name readable records, and
/// nothing a back end counts or estimates to choose its strategy depends on hidden ones.
///
/// Work is bounded by ``candidateLimit``: what a back end cannot narrow or order with its
/// indexes it may check in memory for at most that many candidate records per page.
public struct QueryPlan: Hashable, Sendable {
    /// The zones searched (several for a `zoneWide` query).
    public var zoneRowIDs: [Int64]
    /// The record type.
    public var recordType: String
    /// Filters, all of which must hold.
    public var filters: [QueryFilter]
    /// Sort order; ties are broken by zone and record name.
    public var sorts: [QuerySort]
    /// The most records to return in one page.
    public var limit: Int
    /// Where the previous page ended, if this is a continuation.
    public var after: QueryCursor?
    /// The read policy: when set, only records this user created are seen (a creator-only
    /// record type of the public database, read by someone else than the developer).
    public var createdBy: String?
    /// The most candidate records a back end may read and check in memory for one page (see
    /// ``defaultCandidateLimit``): a page that would need more ends early, with a cursor, or
    /// the query is refused with `BAD_REQUEST` when its order needs every candidate at once.
    public var candidateLimit: Int

    /// The default of ``candidateLimit`` and of `ServiceLimits.maximumQueryCandidates`.
    public static let defaultCandidateLimit = 10_000

    /// Creates a plan.
    public init(
        zoneRowIDs: [Int64], recordType: String, filters: [QueryFilter] = [], sorts: [QuerySort] = [], limit: Int,
        after: QueryCursor? = nil, createdBy: String? = nil, candidateLimit: Int = QueryPlan.defaultCandidateLimit
    ) {
        self.zoneRowIDs = zoneRowIDs
        self.recordType = recordType
        self.filters = filters
        self.sorts = sorts
        self.limit = limit
        self.after = after
        self.createdBy = createdBy
        self.candidateLimit = candidateLimit
    }

    /// The read policy as a filter (`createdUserRecordName EQUALS` ``createdBy``), when there is one.
    public var policyFilter: QueryFilter? {
        createdBy.map { QueryFilter(field: .system(.createdUserRecordName), comparator: .equals, value: .string($0)) }
    }

    /// Every condition a record must meet: the read policy first, then ``filters``.
    public var allFilters: [QueryFilter] {
        (policyFilter.map { [$0] } ?? []) + filters
    }
}

/// One page of query results.
public struct QueryPage: Hashable, Sendable {
    /// At most ``QueryPlan/limit`` live records, in the plan's order.
    public var records: [StoredRecord]
    /// Where this page ended, when more records follow it; `nil` on the last page.
    public var next: QueryCursor?

    /// Creates a page.
    public init(records: [StoredRecord], next: QueryCursor?) {
        self.records = records
        self.next = next
    }
}

/// A field a filter or sort addresses: a record field with its schema type, or a system field.
public enum QueryField: Hashable, Sendable {
    /// A record field and its declared type.
    case field(name: String, type: FieldType)
    /// A system field such as `modifiedTimestamp`.
    case system(SystemFieldName)
}

/// One filter of a plan.
public struct QueryFilter: Hashable, Sendable {
    /// The field tested.
    public var field: QueryField
    /// How it is tested.
    public var comparator: StratusWire.Comparator
    /// The value compared with, normalized to the field's element type (a typed list for `IN`,
    /// `NOT_IN` and the `LIST_*_ANY/ALL` comparators, the tokens for `CONTAINS_*_TOKENS`).
    public var value: FieldValue
    /// For `NEAR`: the radius in meters.
    public var distance: Double?

    /// Creates a filter.
    public init(field: QueryField, comparator: StratusWire.Comparator, value: FieldValue, distance: Double? = nil) {
        self.field = field
        self.comparator = comparator
        self.value = value
        self.distance = distance
    }
}

/// One sort descriptor of a plan.
public struct QuerySort: Hashable, Sendable {
    /// The field sorted by.
    public var field: QueryField
    /// Ascending (the default) or descending.
    public var ascending: Bool
    /// For a location field: order by distance from here.
    public var relativeLocation: Location?

    /// Creates a sort descriptor.
    public init(field: QueryField, ascending: Bool = true, relativeLocation: Location? = nil) {
        self.field = field
        self.ascending = ascending
        self.relativeLocation = relativeLocation
    }
}

/// Where a query page ended: the last record's sort values, zone and name.
///
/// Sort values are what the back end sorted by: the field's value, the system
/// field's value, or the computed distance for a location sort.
public struct QueryCursor: Hashable, Sendable, Codable {
    /// The last record's value for each sort descriptor (`nil` when it had none).
    public var sortValues: [QueryCursorValue?]
    /// The last record's zone row.
    public var zoneRowID: Int64
    /// The last record's name.
    public var recordName: String

    /// Creates a cursor.
    public init(sortValues: [QueryCursorValue?], zoneRowID: Int64, recordName: String) {
        self.sortValues = sortValues
        self.zoneRowID = zoneRowID
        self.recordName = recordName
    }
}

/// A sort value as the index stores it: an integer, a real, a text or bytes.
public enum QueryCursorValue: Hashable, Sendable, Codable {
    /// INT64, TIMESTAMP and system timestamps.
    case integer(Int64)
    /// DOUBLE and distances.
    case real(Double)
    /// STRING, reference names and system names.
    case text(String)
    /// BYTES.
    case bytes(Data)
}
