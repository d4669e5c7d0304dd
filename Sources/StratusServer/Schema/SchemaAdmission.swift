import StratusWire

/// Checks record fields against a schema and grows the schema in development.
///
/// Pure logic: no storage. The result says whether the schema changed, so the
/// caller saves it in the same transaction as the records.
struct SchemaAdmission {
    private(set) var schema: Schema
    private(set) var changed = false
    let canGrow: Bool

    init(schema: Schema, environment: Environment) {
        self.schema = schema
        self.canGrow = environment == .development
    }

    /// Admits `fields` for `recordType`, adding unknown types and fields when the schema may grow.
    ///
    /// - Throws: ``ServiceError`` `BAD_REQUEST` naming the field and both types on a clash, or
    ///   the new field or type when the schema is fixed.
    mutating func admit(recordType: String, fields: [String: FieldValue]) throws(ServiceError) {
        var type = schema.recordTypes[recordType]
        if type == nil {
            guard canGrow else {
                throw .badRequest("record type '\(recordType)' does not exist in the production schema; deploy it from development first")
            }
            type = RecordTypeSchema()
        }
        guard var typeSchema = type else { return }
        var grew = schema.recordTypes[recordType] == nil
        for name in fields.keys.sorted() {
            guard let value = fields[name] else { continue }
            try Self.validate(fieldName: name)
            let incoming = value.type
            if let declared = typeSchema.fields[name]?.type {
                guard Self.compatible(declared: declared, incoming: incoming) else {
                    throw .badRequest(
                        "field '\(name)' of record type '\(recordType)' is \(declared.rawValue) in the schema, but the value given is \(incoming.rawValue)"
                    )
                }
            } else {
                guard canGrow else {
                    throw .badRequest(
                        "field '\(name)' does not exist on record type '\(recordType)' in the production schema; deploy it from development first")
                }
                guard incoming != .unknownList else { continue }  // an empty untyped list says nothing about the type
                typeSchema.fields[name] = .justInTime(incoming)
                grew = true
            }
        }
        if grew {
            schema.recordTypes[recordType] = typeSchema
            changed = true
        }
    }

    private static func compatible(declared: FieldType, incoming: FieldType) -> Bool {
        declared == incoming || (incoming == .unknownList && declared.isList)
    }

    /// Field names are identifiers: a letter first, then letters, digits and underscores, at most 255.
    static func validate(fieldName name: String) throws(ServiceError) {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic,
            name.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }),
            name.utf8.count <= 255
        else {
            throw .badRequest("field name '\(name)' is invalid: use a letter, then letters, digits or underscores (at most 255)")
        }
    }
}
