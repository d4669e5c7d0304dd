import Foundation

extension FieldValue: Codable {
    private enum CodingKeys: String, CodingKey {
        case value
        case type
    }

    /// Decodes a field value dictionary, inferring the type when the `type` tag is absent.
    ///
    /// Equivalent to ``init(json:expecting:codingPath:)`` with no expected type. Use
    /// ``WireCoding/decode(_:from:fieldTypes:)``: with Foundation's `JSONDecoder` an untagged
    /// `2.0` is indistinguishable from `2` and is inferred as INT64.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: ``WireError`` naming the path and the conflicting types.
    public init(from decoder: any Decoder) throws {
        try self.init(from: decoder, expecting: nil)
    }

    /// Decodes a field value dictionary aimed at a field of a known schema type.
    ///
    /// - Parameters:
    ///   - decoder: The decoder to read from.
    ///   - expected: The schema type, if known.
    /// - Throws: ``WireError`` naming the path and the conflicting types.
    public init(from decoder: any Decoder, expecting expected: FieldType?) throws {
        let json = try JSONValue(from: decoder)
        self = try FieldValue(json: json, expecting: expected, codingPath: decoder.codingPath)
    }

    /// Encodes `{"type": …, "value": …}`, always with the tag.
    ///
    /// When the encoder's ``WireCoding/numbersAsStringsKey`` is `true`, INT64, DOUBLE and
    /// TIMESTAMP values (and the elements of their lists) are written as JSON strings.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: Whatever the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type.rawValue, forKey: .type)
        let asStrings = WireCoding.numbersAsStrings(in: encoder)
        switch self {
        case .string(let value): try container.encode(value, forKey: .value)
        case .int64(let value):
            if asStrings { try container.encode(String(value), forKey: .value) } else { try container.encode(value, forKey: .value) }
        case .double(let value):
            if asStrings { try container.encode(value.description, forKey: .value) } else { try container.encode(value, forKey: .value) }
        case .timestamp(let value):
            if asStrings { try container.encode(value.description, forKey: .value) } else { try container.encode(value, forKey: .value) }
        case .bytes(let value): try container.encode(value.base64EncodedString(), forKey: .value)
        case .reference(let value): try container.encode(value, forKey: .value)
        case .asset(let value): try container.encode(value, forKey: .value)
        case .location(let value): try container.encode(value, forKey: .value)
        case .stringList(let values): try container.encode(values, forKey: .value)
        case .int64List(let values):
            if asStrings { try container.encode(values.map { String($0) }, forKey: .value) } else { try container.encode(values, forKey: .value) }
        case .doubleList(let values):
            if asStrings { try container.encode(values.map(\.description), forKey: .value) } else { try container.encode(values, forKey: .value) }
        case .timestampList(let values):
            if asStrings { try container.encode(values.map(\.description), forKey: .value) } else { try container.encode(values, forKey: .value) }
        case .bytesList(let values): try container.encode(values.map { $0.base64EncodedString() }, forKey: .value)
        case .referenceList(let values): try container.encode(values, forKey: .value)
        case .assetList(let values): try container.encode(values, forKey: .value)
        case .locationList(let values): try container.encode(values, forKey: .value)
        case .emptyList: try container.encode([JSONValue](), forKey: .value)
        }
    }

    /// The field value dictionary as JSON, `{"type": …, "value": …}`.
    ///
    /// - Parameter numbersAsStrings: Write INT64, DOUBLE and TIMESTAMP values as JSON strings.
    /// - Returns: The JSON object.
    /// - Throws: ``WireError`` if a value cannot be represented (a NaN double).
    public func json(numbersAsStrings: Bool = false) throws(WireError) -> JSONValue {
        try WireCoding.encodeJSON(self, numbersAsStrings: numbersAsStrings)
    }
}
