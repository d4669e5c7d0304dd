/// How a filter compares a field with its value: the `comparator` of a Filter dictionary.
///
/// Every value in Apple's Types table plus `LIST_CONTAINS_ANY` from CloudKit JS. An unknown
/// comparator fails decoding (the server answers `BAD_REQUEST`).
///
/// CloudKit reference: Types ("Filter Dictionary"); Apple's CloudKit Web Services Reference: “Query, filter, comparator, sort”.
public enum Comparator: String, Hashable, Sendable, Codable, CaseIterable {
    /// Field equals the value.
    case equals = "EQUALS"
    /// Field differs from the value.
    case notEquals = "NOT_EQUALS"
    /// Field is less than the value.
    case lessThan = "LESS_THAN"
    /// Field is less than or equal to the value.
    case lessThanOrEquals = "LESS_THAN_OR_EQUALS"
    /// Field is greater than the value.
    case greaterThan = "GREATER_THAN"
    /// Field is greater than or equal to the value.
    case greaterThanOrEquals = "GREATER_THAN_OR_EQUALS"
    /// Field is one of the listed values (value should carry a `*_LIST` tag).
    case `in` = "IN"
    /// Field is none of the listed values.
    case notIn = "NOT_IN"
    /// String field starts with the value.
    case beginsWith = "BEGINS_WITH"
    /// String field does not start with the value.
    case notBeginsWith = "NOT_BEGINS_WITH"
    /// Searchable string field contains all tokens of the value.
    case containsAllTokens = "CONTAINS_ALL_TOKENS"
    /// Searchable string field contains any token of the value.
    case containsAnyTokens = "CONTAINS_ANY_TOKENS"
    /// Location field within `distance` meters of the value.
    case near = "NEAR"
    /// List field contains the value.
    case listContains = "LIST_CONTAINS"
    /// List field lacks the value.
    case notListContains = "NOT_LIST_CONTAINS"
    /// List field contains any of the values.
    case listContainsAny = "LIST_CONTAINS_ANY"
    /// List field contains none of the values.
    case notListContainsAny = "NOT_LIST_CONTAINS_ANY"
    /// List field contains every value.
    case listContainsAll = "LIST_CONTAINS_ALL"
    /// List field does not contain every value.
    case notListContainsAll = "NOT_LIST_CONTAINS_ALL"
    /// Some list member begins with the value.
    case listMemberBeginsWith = "LIST_MEMBER_BEGINS_WITH"
    /// No list member begins with the value.
    case notListMemberBeginsWith = "NOT_LIST_MEMBER_BEGINS_WITH"
}
