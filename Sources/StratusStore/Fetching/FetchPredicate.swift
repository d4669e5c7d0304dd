/// A condition on objects, built from typed keys and combined with `&&`, `||` and `!`.
///
/// ```swift
/// let title = PredicateKey<String>("title")
/// let pages = PredicateKey<Int>("pages")
/// let predicate = (title.beginsWith("the", options: .caseInsensitive) || pages > 500)
///     && PredicateKey<String>("author.name") != "Anonymous"
///     && !PredicateKey<Bool>("isArchived").isIn([true])
/// ```
///
/// Key paths may go through to-one relationships (`"author.publisher.name"`); to-many
/// relationships are tested with ``any(_:where:)``. Keys and
/// value types are checked against the model when the request runs; a mismatch stops
/// the program with a message naming the key. Conditions are compiled to SQL where SQLite
/// gives the same answer, and evaluated in memory otherwise (diacritic-insensitive and
/// non-ASCII case-insensitive string matching, decimal ordering, unsaved changes).
///
/// Comparisons follow SQL's rules for `nil`: `==` and `!=` treat `nil` as a value
/// (`key == nil` matches unset values), while `<`, `isIn` and the string operators are
/// neither true nor false for an unset value, so neither they nor their negation match it.
public struct FetchPredicate: Sendable, Hashable {
    let node: Node

    indirect enum Node: Sendable, Hashable {
        case constant(Bool)
        case comparison(String, ComparisonOperator, PropertyValue)
        case isIn(String, [PropertyValue])
        case string(String, StringOperator, String, StringComparisonOptions)
        case and([Node])
        case or([Node])
        case not(Node)
        /// Some object of a to-many relationship meets the condition.
        case any(String, Node)
    }

    enum ComparisonOperator: String, Sendable, Hashable {
        case equal = "=="
        case notEqual = "!="
        case less = "<"
        case lessOrEqual = "<="
        case greater = ">"
        case greaterOrEqual = ">="
    }

    enum StringOperator: String, Sendable, Hashable {
        case beginsWith
        case contains
        case endsWith
    }

    init(_ node: Node) {
        self.node = node
    }

    /// Matches every object.
    public static let all = FetchPredicate(.constant(true))
    /// Matches no object.
    public static let none = FetchPredicate(.constant(false))

    /// Matches objects that meet both conditions.
    ///
    /// - Parameters:
    ///   - lhs: A condition.
    ///   - rhs: Another condition.
    /// - Returns: The conjunction.
    public static func && (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate {
        switch (lhs.node, rhs.node) {
        case (.and(let left), .and(let right)): FetchPredicate(.and(left + right))
        case (.and(let left), let right): FetchPredicate(.and(left + [right]))
        case (let left, .and(let right)): FetchPredicate(.and([left] + right))
        case (let left, let right): FetchPredicate(.and([left, right]))
        }
    }

    /// Matches objects that meet either condition.
    ///
    /// - Parameters:
    ///   - lhs: A condition.
    ///   - rhs: Another condition.
    /// - Returns: The disjunction.
    public static func || (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate {
        switch (lhs.node, rhs.node) {
        case (.or(let left), .or(let right)): FetchPredicate(.or(left + right))
        case (.or(let left), let right): FetchPredicate(.or(left + [right]))
        case (let left, .or(let right)): FetchPredicate(.or([left] + right))
        case (let left, let right): FetchPredicate(.or([left, right]))
        }
    }

    /// Matches objects for which the condition is false (not those for which it is unknown, as for `nil` in `<`).
    ///
    /// - Parameter predicate: A condition.
    /// - Returns: The negation.
    public static prefix func ! (predicate: FetchPredicate) -> FetchPredicate {
        FetchPredicate(.not(predicate.node))
    }

    /// Matches objects with at least one related object, in a to-many relationship, that meets a condition (Core Data's `ANY`).
    ///
    /// ```swift
    /// // Authors with a book of more than 500 pages:
    /// FetchPredicate.any("books", where: PredicateKey<Int>("pages") > 500)
    /// // Books tagged "classic", and books with no tag at all:
    /// FetchPredicate.any("tags", where: PredicateKey<String>("label") == "classic")
    /// !FetchPredicate.any("tags", where: .all)
    /// ```
    ///
    /// The condition is about the related objects (their keys, key paths and own `any`). It is
    /// never unknown: an object without related objects, or none of whose related objects meet
    /// the condition, does not match.
    ///
    /// - Parameters:
    ///   - key: A to-many relationship of the fetched entity.
    ///   - predicate: The condition on the related objects.
    /// - Returns: The condition.
    public static func any(_ key: String, where predicate: FetchPredicate) -> FetchPredicate {
        FetchPredicate(.any(key, predicate.node))
    }

    /// Matches every object in `ids`.
    ///
    /// - Parameter ids: Object IDs of the fetched entity.
    /// - Returns: The condition.
    public static func objectIDs(in ids: some Sequence<ObjectID>) -> FetchPredicate {
        FetchPredicate(.isIn("self", ids.map { PropertyValue.toOne($0) }))
    }
}

/// Options of the string operators of ``PredicateKey``.
public struct StringComparisonOptions: OptionSet, Sendable, Hashable {
    /// The options' bits.
    public var rawValue: Int

    /// Makes options from their bits.
    ///
    /// - Parameter rawValue: The bits.
    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    /// Ignores case: `"A"` matches `"a"`.
    public static let caseInsensitive = StringComparisonOptions(rawValue: 1 << 0)
    /// Ignores diacritics: `"e"` matches `"é"`.
    public static let diacriticInsensitive = StringComparisonOptions(rawValue: 1 << 1)
}
