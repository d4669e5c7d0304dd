/// Service limits from Apple's CloudKit Web Services Reference: “Limits and quotas”.
public struct ServiceLimits: Hashable, Sendable {
    /// Operations per `records/modify` (and other modify) request.
    public var maximumOperationsPerRequest = 200
    /// Records per response and the largest `resultsLimit`.
    public var maximumResultsPerResponse = 200
    /// A record's size in bytes, assets excluded.
    public var maximumRecordSize = 1 << 20
    /// `DELETE_SELF` references that may point at one record.
    public var maximumDeleteSelfReferencesPerTarget = 750
    /// The most candidate records a `records/query` page may read and check in memory, where
    /// the indexes cannot narrow or order the query by themselves (see `QueryPlan.candidateLimit`;
    /// `stratus serve --query-candidate-limit`). 10,000 by default.
    public var maximumQueryCandidates = QueryPlan.defaultCandidateLimit
    /// How long a `changes/database` page waits for older writes still in flight when zone changes
    /// that committed after them are held back (PostgreSQL; Documentation/0008-postgres.md, "The
    /// database change log from transaction IDs"): past it, the page reports those zones without
    /// moving its token past them, so they come again. 3 seconds by default.
    public var databaseFeedWait = Duration.seconds(3)

    /// The CloudKit limits.
    public init() {}
}

extension ServiceLimits {
    /// Refuses a modify request of more than ``maximumOperationsPerRequest`` operations.
    func checkOperationCount(_ count: Int) throws(ServiceError) {
        guard count <= maximumOperationsPerRequest else {
            throw .badRequest("a request may carry at most \(maximumOperationsPerRequest) operations; this one has \(count)")
        }
    }

    /// A bounded `resultsLimit`: by default and at most ``maximumResultsPerResponse``.
    func resultsLimit(_ requested: Int?) throws(ServiceError) -> Int {
        guard let requested else { return maximumResultsPerResponse }
        guard requested >= 1 else { throw .badRequest("resultsLimit must be at least 1; got \(requested)") }
        return min(requested, maximumResultsPerResponse)
    }
}
