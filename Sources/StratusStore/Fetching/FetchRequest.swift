/// A description of the objects to fetch: an entity, a predicate, a sort order, a limit and an offset.
///
/// ```swift
/// var request = FetchRequest(entityName: "Book")
/// request.predicate = PredicateKey<String>("author.name") == "Ursula K. Le Guin"
///     && PredicateKey<Int>("pages") >= 200
/// request.sortDescriptors = [.ascending("title")]
/// request.fetchLimit = 20
/// let books = try context.fetch(request)
/// ```
///
/// Results include the unsaved changes of the context and of its ancestors: matching
/// inserted objects appear, deleted ones do not, and changed ones are matched and sorted
/// by their new values.
public struct FetchRequest: Sendable, Hashable {
    /// The entity whose objects are fetched.
    public var entityName: String
    /// The condition objects must meet, or `nil` for all of them.
    public var predicate: FetchPredicate?
    /// The order of the results; ties are broken by object ID, so the order is stable.
    public var sortDescriptors: [SortDescriptor]
    /// The most results to return, or `nil` for no limit.
    public var fetchLimit: Int?
    /// How many results to skip first.
    public var fetchOffset: Int
    /// Whether results reflect the unsaved changes of the context and its ancestors (`true`)
    /// or only what is stored (`false`).
    public var includesPendingChanges: Bool
    /// How many objects load their values together; 0 (the default) loads every result's values with the fetch.
    ///
    /// With a batch size, a fetch that SQL answers alone reads only the IDs of the results,
    /// loads the values of the first batch, and leaves the other results as faults; the first
    /// time one of those is read, its whole batch loads with one query. Memory and time then
    /// follow what is used, not the size of the result. (When unsaved changes take part, every
    /// result's values load.)
    public var fetchBatchSize: Int

    /// Makes a request.
    ///
    /// - Parameters:
    ///   - entityName: The entity to fetch.
    ///   - predicate: The condition, if any.
    ///   - sortDescriptors: The order.
    ///   - fetchLimit: The most results, if any.
    ///   - fetchOffset: How many results to skip.
    public init(
        entityName: String, predicate: FetchPredicate? = nil, sortDescriptors: [SortDescriptor] = [],
        fetchLimit: Int? = nil, fetchOffset: Int = 0
    ) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
        includesPendingChanges = true
        fetchBatchSize = 0
    }

    /// One key of a sort order: an attribute, possibly through to-one relationships, ascending or descending.
    ///
    /// `nil` values sort first when ascending. Strings sort by their UTF-8 bytes.
    public struct SortDescriptor: Sendable, Hashable {
        /// The attribute, as `"title"` or `"author.name"`.
        public var keyPath: String
        /// Whether smaller values come first.
        public var ascending: Bool

        /// Makes a sort descriptor.
        ///
        /// - Parameters:
        ///   - keyPath: The attribute, possibly through to-one relationships.
        ///   - ascending: Whether smaller values come first.
        public init(keyPath: String, ascending: Bool = true) {
            self.keyPath = keyPath
            self.ascending = ascending
        }

        /// Sorts by `keyPath`, smaller values first.
        ///
        /// - Parameter keyPath: The attribute.
        /// - Returns: The descriptor.
        public static func ascending(_ keyPath: String) -> SortDescriptor {
            SortDescriptor(keyPath: keyPath, ascending: true)
        }

        /// Sorts by `keyPath`, larger values first.
        ///
        /// - Parameter keyPath: The attribute.
        /// - Returns: The descriptor.
        public static func descending(_ keyPath: String) -> SortDescriptor {
            SortDescriptor(keyPath: keyPath, ascending: false)
        }
    }
}
