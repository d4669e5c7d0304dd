/// One ordering of a query: the Sort Descriptor dictionary.
///
/// ```swift
/// let newestFirst = Sort(.system(.createdTimestamp), ascending: false)
/// ```
///
/// CloudKit reference: Types ("Sort Descriptor Dictionary"); Apple's CloudKit Web Services Reference: “Query, filter, comparator, sort”.
public struct Sort: Hashable, Sendable, Codable {
    /// The field sorted on (`fieldName` or `systemFieldName`).
    public var target: FieldTarget
    /// The wire `ascending` key; `nil` means the default, ascending.
    public var ascending: Bool?
    /// For a Location field: order by distance from this LOCATION value.
    public var relativeLocation: FieldValue?

    /// Creates a sort descriptor.
    ///
    /// - Parameters:
    ///   - target: The field sorted on.
    ///   - ascending: The direction; `nil` leaves the key out (ascending).
    ///   - relativeLocation: For Location fields, the point distances are measured from.
    public init(_ target: FieldTarget, ascending: Bool? = nil, relativeLocation: FieldValue? = nil) {
        self.target = target
        self.ascending = ascending
        self.relativeLocation = relativeLocation
    }

    /// Whether the order is ascending (the default when the key is absent).
    public var isAscending: Bool { ascending ?? true }

    private enum CodingKeys: String, CodingKey {
        case ascending, relativeLocation
    }

    /// Decodes a sort descriptor.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: ``WireError`` or `DecodingError` naming the path of the bad key.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        target = try FieldTarget(
            from: decoder.container(keyedBy: FieldTarget.CodingKeys.self), codingPath: decoder.codingPath)
        ascending = try container.decodeIfPresent(Bool.self, forKey: .ascending)
        relativeLocation = try container.decodeIfPresent(FieldValue.self, forKey: .relativeLocation)
    }

    /// Encodes the sort descriptor.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var targetContainer = encoder.container(keyedBy: FieldTarget.CodingKeys.self)
        try target.encode(to: &targetContainer)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(ascending, forKey: .ascending)
        try container.encodeIfPresent(relativeLocation, forKey: .relativeLocation)
    }
}
