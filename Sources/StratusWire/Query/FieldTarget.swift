/// The field a filter or sort applies to: a record field (`fieldName`) or a system field
/// (`systemFieldName`) — exactly one of the two keys on the wire.
public enum FieldTarget: Hashable, Sendable {
    /// A field of the record type, written as `fieldName`.
    case field(String)
    /// A system field, written as `systemFieldName`.
    case system(SystemFieldName)

    enum CodingKeys: String, CodingKey {
        case fieldName, systemFieldName
    }

    init(from container: KeyedDecodingContainer<CodingKeys>, codingPath: [any CodingKey]) throws {
        let field = try container.decodeIfPresent(String.self, forKey: .fieldName)
        let system = try container.decodeIfPresent(SystemFieldName.self, forKey: .systemFieldName)
        switch (field, system) {
        case (let name?, nil): self = .field(name)
        case (nil, let system?): self = .system(system)
        case (nil, nil):
            throw WireError(code: .missingKey, message: "missing key 'fieldName' (or 'systemFieldName')", codingPath: codingPath)
        case (.some, .some):
            throw WireError(
                code: .invalidValue, message: "give either 'fieldName' or 'systemFieldName', not both", codingPath: codingPath)
        }
    }

    func encode(to container: inout KeyedEncodingContainer<CodingKeys>) throws {
        switch self {
        case .field(let name): try container.encode(name, forKey: .fieldName)
        case .system(let system): try container.encode(system, forKey: .systemFieldName)
        }
    }
}
