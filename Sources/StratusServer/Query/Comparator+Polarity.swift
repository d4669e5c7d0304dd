public import StratusWire

extension StratusWire.Comparator {
    /// The comparator a `NOT_…` comparator negates, or `nil` for a positive one.
    ///
    /// A negative comparator keeps exactly the records its positive one does not, a record
    /// without the field among them: the rule of the query index on every back end and of the
    /// in-memory evaluator of query subscriptions (Documentation/0002, 0007).
    public var negatedComparator: StratusWire.Comparator? {
        switch self {
        case .notEquals: .equals
        case .notIn: .in
        case .notBeginsWith: .beginsWith
        case .notListContains: .listContains
        case .notListContainsAny: .listContainsAny
        case .notListContainsAll: .listContainsAll
        case .notListMemberBeginsWith: .listMemberBeginsWith
        default: nil
        }
    }

    /// Whether the comparator keeps the records where its positive comparator fails.
    public var isNegative: Bool { negatedComparator != nil }
}
