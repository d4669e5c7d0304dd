/// One condition of a query: the Filter dictionary.
///
/// ```swift
/// let mine = Filter(.system(.createdUserRecordName), .equals, .reference(Reference(recordName: "_abc")))
/// let tagged = Filter(.field("tags"), .listContains, .string("work"))
/// let nearby = Filter(.field("place"), .near, .location(Location(latitude: 48.85, longitude: 2.35)), distance: 500)
/// ```
///
/// CloudKit reference: Types ("Filter Dictionary"); Apple's CloudKit Web Services Reference: “Query, filter, comparator, sort”.
public struct Filter: Hashable, Sendable, Codable {
    /// The field compared (`fieldName` or `systemFieldName`).
    public var target: FieldTarget
    /// How to compare.
    public var comparator: Comparator
    /// The value to compare with; use a `*_LIST` value for `IN`/`NOT_IN`.
    public var fieldValue: FieldValue
    /// The radius in meters, for `NEAR`.
    public var distance: Double?

    /// Creates a filter.
    ///
    /// - Parameters:
    ///   - target: The field compared.
    ///   - comparator: How to compare.
    ///   - fieldValue: The value to compare with.
    ///   - distance: The radius in meters, for `NEAR`.
    public init(_ target: FieldTarget, _ comparator: Comparator, _ fieldValue: FieldValue, distance: Double? = nil) {
        self.target = target
        self.comparator = comparator
        self.fieldValue = fieldValue
        self.distance = distance
    }

    private enum CodingKeys: String, CodingKey {
        case comparator, fieldValue, distance
    }

    /// Decodes a filter dictionary.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: ``WireError`` or `DecodingError` naming the path of the bad key.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        target = try FieldTarget(
            from: decoder.container(keyedBy: FieldTarget.CodingKeys.self), codingPath: decoder.codingPath)
        comparator = try container.decode(Comparator.self, forKey: .comparator)
        fieldValue = try container.decode(FieldValue.self, forKey: .fieldValue)
        distance = try container.decodeIfPresent(Double.self, forKey: .distance)
    }

    /// Encodes the filter dictionary.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var targetContainer = encoder.container(keyedBy: FieldTarget.CodingKeys.self)
        try target.encode(to: &targetContainer)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(comparator, forKey: .comparator)
        try container.encode(fieldValue, forKey: .fieldValue)
        try container.encodeIfPresent(distance, forKey: .distance)
    }
}
