public import Foundation
public import StratusWire

/// The rules of `stratus schema export|import|deploy`, as pure functions.
///
/// A schema document is the JSON of ``Schema``. Reading one is strict: unknown
/// keys, unknown field types and invalid names are refused with a message that
/// names them. Changing a stored schema is additive, as CloudKit's deploy is:
/// record types and fields may be added and index flags flipped, but nothing
/// that exists may be removed or retyped, so no stored record ever holds a
/// field its schema no longer knows.
///
/// ```swift
/// let proposed = try SchemaDeployment.decode(data)
/// let plan = try SchemaDeployment.plan(from: current, to: proposed, environment: .production)
/// for change in plan.changes { print(change) }
/// ```
public enum SchemaDeployment {
    /// The keys a field dictionary may have.
    static let fieldKeys: Set<String> = ["type", "queryable", "sortable", "searchable"]

    /// Parses and validates a schema document.
    ///
    /// Index flags that are left out are `false`; `fields` may be left out for a type without fields.
    ///
    /// - Parameter data: UTF-8 JSON such as `{"recordTypes":{"Note":{"fields":{"title":{"type":"STRING"}}}}}`.
    /// - Returns: The schema.
    /// - Throws: ``SchemaError`` `invalidDocument` for bad JSON or shape, `invalidSchema` for
    ///   bad names, types or flags; the message names the key, type or field.
    public static func decode(_ data: Data) throws(SchemaError) -> Schema {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: data)
        } catch {
            throw SchemaError(.invalidDocument, "the schema is not valid JSON: \(error)")
        }
        let root = try object(json, "the schema", expecting: "an object with a 'recordTypes' object")
        try checkKeys(root, allowed: ["recordTypes"], in: "the schema")
        guard let typesValue = root["recordTypes"] else {
            throw SchemaError(.invalidDocument, "the schema has no 'recordTypes' object")
        }
        let types = try object(typesValue, "'recordTypes'", expecting: "an object of record types by name")
        var schema = Schema()
        for typeName in types.keys.sorted() {
            guard let typeValue = types[typeName] else { continue }
            let place = "record type '\(typeName)'"
            let typeObject = try object(typeValue, place, expecting: "an object with a 'fields' object")
            try checkKeys(typeObject, allowed: ["fields", "roles"], in: place)
            let fields = try object(typeObject["fields"] ?? .object([:]), "'fields' of \(place)", expecting: "an object of fields by name")
            var typeSchema = RecordTypeSchema()
            if let rolesValue = typeObject["roles"] { typeSchema.roles = try roles(rolesValue, recordType: typeName) }
            for fieldName in fields.keys.sorted() {
                guard let fieldValue = fields[fieldName] else { continue }
                typeSchema.fields[fieldName] = try field(fieldValue, named: fieldName, recordType: typeName)
            }
            schema.recordTypes[typeName] = typeSchema
        }
        try validate(schema)
        return schema
    }

    /// The schema as a document: pretty-printed JSON with sorted keys and a final newline.
    ///
    /// - Parameter schema: The schema to write.
    /// - Returns: UTF-8 JSON that ``decode(_:)`` reads back to the same schema.
    /// - Throws: `WireError` if the schema cannot be encoded (it always can).
    public static func encode(_ schema: Schema) throws -> Data {
        var data = try WireCoding.encodeJSON(schema).serialized(prettyPrinted: true)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Checks every name, type and index flag of a schema.
    ///
    /// Record types start with a letter; field names are identifiers (a letter, then
    /// letters, digits and underscores); `UNKNOWN_LIST` is not a field type; only
    /// `STRING` and `STRING_LIST` fields can be searchable; list fields cannot be sortable.
    ///
    /// - Parameter schema: The schema.
    /// - Throws: ``SchemaError`` `invalidSchema` naming the first type or field at fault.
    public static func validate(_ schema: Schema) throws(SchemaError) {
        for typeName in schema.recordTypes.keys.sorted() {
            do {
                try RecordModifier.validate(recordType: typeName)
            } catch {
                throw SchemaError(.invalidSchema, error.reason, recordType: typeName)
            }
            guard let type = schema.recordTypes[typeName] else { continue }
            for fieldName in type.fields.keys.sorted() {
                guard let field = type.fields[fieldName] else { continue }
                let place = "field '\(fieldName)' of record type '\(typeName)'"
                func invalid(_ problem: String) -> SchemaError {
                    SchemaError(.invalidSchema, "\(place) \(problem)", recordType: typeName, field: fieldName)
                }
                do {
                    try SchemaAdmission.validate(fieldName: fieldName)
                } catch {
                    throw SchemaError(.invalidSchema, "\(error.reason) (record type '\(typeName)')", recordType: typeName, field: fieldName)
                }
                if field.type == .unknownList {
                    throw invalid("has type UNKNOWN_LIST, which only describes empty lists; give the element type, e.g. STRING_LIST")
                }
                if field.searchable, field.type != .string, field.type != .stringList {
                    throw invalid("is \(field.type.rawValue) and cannot be searchable; only STRING and STRING_LIST fields can")
                }
                if field.sortable, field.type.isList {
                    throw invalid("is \(field.type.rawValue) and cannot be sortable; list fields cannot be sorted on")
                }
            }
        }
    }

    /// What replacing `current` by `proposed` would change, refusing anything but additions.
    ///
    /// - Parameters:
    ///   - current: The schema stored now.
    ///   - proposed: The schema to store instead.
    ///   - environment: The environment `current` belongs to, named in messages.
    /// - Returns: The plan: `proposed` and the additions and index changes it brings.
    /// - Throws: ``SchemaError`` `incompatibleChange` naming the first type or field that
    ///   `proposed` removes or retypes.
    public static func plan(from current: Schema, to proposed: Schema, environment: Environment) throws(SchemaError) -> SchemaPlan {
        let stored = "the \(environment.rawValue) schema"
        for typeName in current.recordTypes.keys.sorted() {
            guard let proposedType = proposed.recordTypes[typeName] else {
                throw SchemaError(
                    .incompatibleChange,
                    "record type '\(typeName)' is in \(stored) but not in the new schema; schema changes may only add types and fields, so it cannot be removed",
                    recordType: typeName
                )
            }
            guard let currentType = current.recordTypes[typeName] else { continue }
            for fieldName in currentType.fields.keys.sorted() {
                guard let currentField = currentType.fields[fieldName] else { continue }
                guard let proposedField = proposedType.fields[fieldName] else {
                    throw SchemaError(
                        .incompatibleChange,
                        "field '\(fieldName)' of record type '\(typeName)' is in \(stored) but not in the new schema; schema changes may only add types and fields, so it cannot be removed",
                        recordType: typeName, field: fieldName
                    )
                }
                guard proposedField.type == currentField.type else {
                    throw SchemaError(
                        .incompatibleChange,
                        "field '\(fieldName)' of record type '\(typeName)' is \(currentField.type.rawValue) in \(stored); it cannot become \(proposedField.type.rawValue), because fields cannot be retyped",
                        recordType: typeName, field: fieldName
                    )
                }
            }
        }
        var changes: [SchemaChange] = []
        for typeName in proposed.recordTypes.keys.sorted() {
            guard let proposedType = proposed.recordTypes[typeName] else { continue }
            let currentType = current.recordTypes[typeName]
            if currentType == nil { changes.append(.addedRecordType(typeName)) }
            if proposedType.roles != currentType?.roles, currentType != nil || proposedType.roles != nil {
                changes.append(.changedRoles(recordType: typeName, from: currentType?.roles ?? .default, to: proposedType.roles ?? .default))
            }
            for fieldName in proposedType.fields.keys.sorted() {
                guard let proposedField = proposedType.fields[fieldName] else { continue }
                if let currentField = currentType?.fields[fieldName] {
                    if currentField != proposedField {
                        changes.append(.changedIndexes(recordType: typeName, field: fieldName, from: currentField, to: proposedField))
                    }
                } else {
                    changes.append(.addedField(recordType: typeName, field: fieldName, proposedField))
                }
            }
        }
        return SchemaPlan(schema: proposed, changes: changes)
    }

    // MARK: Reading documents

    private static func roles(_ value: JSONValue, recordType typeName: String) throws(SchemaError) -> SecurityRoles {
        let place = "'roles' of record type '\(typeName)'"
        let members = try object(value, place, expecting: #"an object such as {"world": {"read": true}, "creator": {"write": true}}"#)
        try checkKeys(members, allowed: ["world", "authenticated", "creator"], in: place)
        func permissions(_ role: String) throws(SchemaError) -> SecurityRoles.Permissions {
            guard let roleValue = members[role] else { return SecurityRoles.Permissions() }
            let rolePlace = "'\(role)' of \(place)"
            let flags = try object(roleValue, rolePlace, expecting: #"an object such as {"read": true, "create": false, "write": false}"#)
            try checkKeys(flags, allowed: ["read", "create", "write"], in: rolePlace)
            func flag(_ key: String) throws(SchemaError) -> Bool {
                switch flags[key] {
                case nil: return false
                case .bool(let on): return on
                case let other?:
                    throw SchemaError(.invalidDocument, "'\(key)' of \(rolePlace) must be true or false; got \(other.kindDescription)", recordType: typeName)
                }
            }
            return SecurityRoles.Permissions(read: try flag("read"), create: try flag("create"), write: try flag("write"))
        }
        return SecurityRoles(world: try permissions("world"), authenticated: try permissions("authenticated"), creator: try permissions("creator"))
    }

    private static func field(_ value: JSONValue, named fieldName: String, recordType typeName: String) throws(SchemaError) -> FieldSchema {
        let place = "field '\(fieldName)' of record type '\(typeName)'"
        let fieldObject = try object(value, place, expecting: #"an object such as {"type": "STRING", "queryable": true}"#)
        try checkKeys(fieldObject, allowed: fieldKeys, in: place)
        guard let typeValue = fieldObject["type"] else {
            throw SchemaError(.invalidDocument, "\(place) has no 'type'", recordType: typeName, field: fieldName)
        }
        guard let tag = typeValue.stringValue else {
            throw SchemaError(
                .invalidDocument, "'type' of \(place) must be a string; got \(typeValue.kindDescription)", recordType: typeName, field: fieldName
            )
        }
        guard let type = FieldType(rawValue: tag) else {
            let known = FieldType.allCases.filter { $0 != .unknownList }.map(\.rawValue).joined(separator: ", ")
            throw SchemaError(
                .invalidSchema, "\(place) has unknown type '\(tag)'; use one of \(known)", recordType: typeName, field: fieldName
            )
        }
        func flag(_ key: String) throws(SchemaError) -> Bool {
            switch fieldObject[key] {
            case nil: return false
            case .bool(let value): return value
            case let other?:
                throw SchemaError(
                    .invalidDocument, "'\(key)' of \(place) must be true or false; got \(other.kindDescription)",
                    recordType: typeName, field: fieldName
                )
            }
        }
        return FieldSchema(type: type, queryable: try flag("queryable"), sortable: try flag("sortable"), searchable: try flag("searchable"))
    }

    private static func object(_ value: JSONValue, _ place: String, expecting shape: String) throws(SchemaError) -> [String: JSONValue] {
        guard let members = value.objectValue else {
            throw SchemaError(.invalidDocument, "\(place) must be \(shape); got \(value.kindDescription)")
        }
        return members
    }

    private static func checkKeys(_ members: [String: JSONValue], allowed: Set<String>, in place: String) throws(SchemaError) {
        let unknown = members.keys.filter { !allowed.contains($0) }.sorted()
        guard let first = unknown.first else { return }
        throw SchemaError(
            .invalidDocument,
            "\(place) has unknown key '\(first)'; the keys allowed there are \(allowed.sorted().map { "'\($0)'" }.joined(separator: ", "))"
        )
    }
}

/// A schema change that passed the additive rule: the resulting schema and what it adds.
public struct SchemaPlan: Hashable, Sendable {
    /// The schema to store.
    public var schema: Schema
    /// The additions and index changes, by record type then field name.
    public var changes: [SchemaChange]

    /// Creates a plan.
    public init(schema: Schema, changes: [SchemaChange]) {
        self.schema = schema
        self.changes = changes
    }

    /// Whether storing ``schema`` changes nothing.
    public var isEmpty: Bool { changes.isEmpty }
}

/// One difference an additive schema change makes.
public enum SchemaChange: Hashable, Sendable, CustomStringConvertible {
    /// A new record type (its fields follow as ``addedField(recordType:field:_:)``).
    case addedRecordType(String)
    /// A new field.
    case addedField(recordType: String, field: String, FieldSchema)
    /// A field whose index flags change; its type stays.
    case changedIndexes(recordType: String, field: String, from: FieldSchema, to: FieldSchema)
    /// A record type whose security roles change.
    case changedRoles(recordType: String, from: SecurityRoles, to: SecurityRoles)

    /// One line for the command line: `+ record type Note`, `+ field Note.title STRING (queryable, sortable)`,
    /// `~ field Note.title indexes: queryable → queryable, searchable`.
    public var description: String {
        switch self {
        case .addedRecordType(let name):
            "+ record type \(name)"
        case .addedField(let type, let field, let schema):
            "+ field \(type).\(field) \(schema.type.rawValue) (\(Self.indexes(schema)))"
        case .changedIndexes(let type, let field, let from, let to):
            "~ field \(type).\(field) indexes: \(Self.indexes(from)) → \(Self.indexes(to))"
        case .changedRoles(let type, let from, let to):
            "~ record type \(type) roles: \(Self.roles(from)) → \(Self.roles(to))"
        }
    }

    private static func roles(_ roles: SecurityRoles) -> String {
        [("world", roles.world), ("authenticated", roles.authenticated), ("creator", roles.creator)].map { name, permissions in
            let flags = [(permissions.read, "read"), (permissions.create, "create"), (permissions.write, "write")].filter(\.0).map(\.1)
            return "\(name) \(flags.isEmpty ? "none" : flags.joined(separator: "+"))"
        }.joined(separator: ", ")
    }

    private static func indexes(_ field: FieldSchema) -> String {
        let names = [(field.queryable, "queryable"), (field.sortable, "sortable"), (field.searchable, "searchable")]
            .filter(\.0).map(\.1)
        return names.isEmpty ? "no indexes" : names.joined(separator: ", ")
    }
}
