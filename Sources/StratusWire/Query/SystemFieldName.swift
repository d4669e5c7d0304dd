/// A system field usable in filters and sorts through `systemFieldName`.
///
/// The raw value is the `systemFieldName` spelling; ``indexName`` is the `___`-prefixed index
/// field name, which ``init(wireName:)`` also accepts.
///
/// CloudKit reference: Types ("System fields"); Apple's CloudKit Web Services Reference: “Query, filter, comparator, sort”.
public enum SystemFieldName: String, Hashable, Sendable, Codable, CaseIterable {
    /// The record name (`___recordId`).
    case recordName
    /// The covering share (`___share`).
    case share
    /// The parent record (`___parent`).
    case parent
    /// The creator (`___createdBy`).
    case createdUserRecordName
    /// The creation time (`___createTime`).
    case createdTimestamp
    /// The modification time (`___modTime`).
    case modifiedTimestamp
    /// The last modifier (`___modifiedBy`).
    case modifiedUserRecordName

    /// The index field name, such as `___createTime`.
    public var indexName: String {
        switch self {
        case .recordName: "___recordId"
        case .share: "___share"
        case .parent: "___parent"
        case .createdUserRecordName: "___createdBy"
        case .createdTimestamp: "___createTime"
        case .modifiedTimestamp: "___modTime"
        case .modifiedUserRecordName: "___modifiedBy"
        }
    }

    /// Creates a system field from its `systemFieldName` spelling or its `___` index name.
    ///
    /// - Parameter wireName: `"createdTimestamp"` or `"___createTime"`.
    public init?(wireName: String) {
        if let field = SystemFieldName(rawValue: wireName) {
            self = field
        } else if let field = SystemFieldName.allCases.first(where: { $0.indexName == wireName }) {
            self = field
        } else {
            return nil
        }
    }

    /// Decodes either spelling.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: ``WireError`` naming an unknown system field.
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let field = SystemFieldName(wireName: name) else {
            throw WireError(code: .invalidValue, message: "unknown systemFieldName '\(name)'", codingPath: decoder.codingPath)
        }
        self = field
    }
}
