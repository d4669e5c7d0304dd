public import StratusWire

/// The record types of one container environment, with typed, indexed fields.
///
/// In `development` the schema grows on the first save of a new type or field,
/// as in CloudKit; in `production` it is fixed, and moves there with
/// `stratus schema deploy`. Exported and imported as JSON:
///
/// ```json
/// {"recordTypes": {"Note": {"fields": {"title": {"type": "STRING", "queryable": true, "sortable": true, "searchable": true}}}}}
/// ```
public struct Schema: Hashable, Sendable, Codable {
    /// Record types by name.
    public var recordTypes: [String: RecordTypeSchema]

    /// Creates a schema.
    public init(recordTypes: [String: RecordTypeSchema] = [:]) {
        self.recordTypes = recordTypes
    }

    /// The declared type of `fieldName`: in `recordType` when given, else the one type
    /// every record type that has such a field agrees on.
    public func fieldType(recordType: String?, fieldName: String) -> FieldType? {
        if let recordType {
            return recordTypes[recordType]?.fields[fieldName]?.type
        }
        let types = Set(recordTypes.values.compactMap { $0.fields[fieldName]?.type })
        return types.count == 1 ? types.first : nil
    }

    /// A lookup that interprets untagged field values of requests with this schema.
    public var fieldTypeLookup: FieldTypeLookup {
        let schema = self
        return FieldTypeLookup { recordType, fieldName in schema.fieldType(recordType: recordType, fieldName: fieldName) }
    }
}

/// One record type: its fields and, optionally, its security roles in the public database.
public struct RecordTypeSchema: Hashable, Sendable, Codable {
    /// Fields by name.
    public var fields: [String: FieldSchema]
    /// Who may read, create and change its public records; ``SecurityRoles/default`` when `nil`.
    public var roles: SecurityRoles?

    /// Creates a record type.
    public init(fields: [String: FieldSchema] = [:], roles: SecurityRoles? = nil) {
        self.fields = fields
        self.roles = roles
    }
}

/// One field: its type and the indexes it has.
public struct FieldSchema: Hashable, Sendable, Codable {
    /// The field's CloudKit type, such as `TIMESTAMP` or `STRING_LIST`.
    public var type: FieldType
    /// Whether filters may use it.
    public var queryable: Bool
    /// Whether sort descriptors may use it.
    public var sortable: Bool
    /// Whether token search (`CONTAINS_*_TOKENS`) may use it; strings only.
    public var searchable: Bool

    /// Creates a field.
    public init(type: FieldType, queryable: Bool = true, sortable: Bool = true, searchable: Bool = false) {
        self.type = type
        self.queryable = queryable
        self.sortable = sortable
        self.searchable = searchable
    }

    /// A field the development schema grows to include: no indexes yet.
    ///
    /// Indexes cost every write, so a field gets one only when something needs
    /// it: in development the first query that filters, sorts or searches on
    /// the field turns the index on (and builds it); `stratus schema import`
    /// sets them explicitly; deploying carries them to production.
    public static func justInTime(_ type: FieldType) -> FieldSchema {
        FieldSchema(type: type, queryable: false, sortable: false, searchable: false)
    }
}
