import Foundation
import StratusServer
import StratusWire
import Testing

@Suite struct SchemaDeploymentTests {
    static let note = Schema(recordTypes: [
        "Note": RecordTypeSchema(fields: [
            "title": FieldSchema(type: .string, queryable: true, sortable: true, searchable: true),
            "due": FieldSchema(type: .timestamp, queryable: true, sortable: true, searchable: false),
        ])
    ])

    private func decodeError(_ json: String) -> SchemaError? {
        do {
            _ = try SchemaDeployment.decode(Data(json.utf8))
            return nil
        } catch {
            return error
        }
    }

    // MARK: Documents

    @Test func exportedDocumentReadsBackToTheSameSchema() throws {
        let data = try SchemaDeployment.encode(Self.note)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.hasSuffix("}\n"))
        #expect(text.contains("\n  \"recordTypes\""), "pretty-printed")
        #expect(try #require(text.range(of: "\"due\"")).lowerBound < (try #require(text.range(of: "\"title\""))).lowerBound, "keys sorted")
        #expect(try SchemaDeployment.decode(data) == Self.note)
    }

    @Test func documentFromTheBriefDecodes() throws {
        let schema = try SchemaDeployment.decode(
            Data(#"{"recordTypes":{"Note":{"fields":{"title":{"type":"STRING","queryable":true,"sortable":true,"searchable":true}}}}}"#.utf8)
        )
        #expect(schema.recordTypes["Note"]?.fields["title"] == FieldSchema(type: .string, queryable: true, sortable: true, searchable: true))
    }

    @Test func omittedFlagsAreFalseAndOmittedFieldsAreEmpty() throws {
        let schema = try SchemaDeployment.decode(Data(#"{"recordTypes":{"Note":{"fields":{"n":{"type":"INT64"}}},"Empty":{}}}"#.utf8))
        #expect(schema.recordTypes["Note"]?.fields["n"] == FieldSchema(type: .int64, queryable: false, sortable: false, searchable: false))
        #expect(schema.recordTypes["Empty"] == RecordTypeSchema())
    }

    @Test func assetAliasIsAccepted() throws {
        let schema = try SchemaDeployment.decode(Data(#"{"recordTypes":{"Photo":{"fields":{"image":{"type":"ASSET"}}}}}"#.utf8))
        #expect(schema.recordTypes["Photo"]?.fields["image"]?.type == .asset)
    }

    @Test func invalidJSONIsRefused() {
        let error = decodeError(#"{"recordTypes": "#)
        #expect(error?.code == .invalidDocument)
        #expect(error?.message.contains("not valid JSON") == true)
    }

    @Test func missingRecordTypesIsRefused() {
        #expect(decodeError("{}")?.message == "the schema has no 'recordTypes' object")
        #expect(decodeError("[]")?.message.contains("must be an object") == true)
    }

    @Test func unknownKeysAreNamed() {
        let error = decodeError(#"{"recordTypes":{"Note":{"fields":{"title":{"type":"STRING","queriable":true}}}}}"#)
        #expect(error?.code == .invalidDocument)
        #expect(error?.message.contains("field 'title' of record type 'Note' has unknown key 'queriable'") == true)
        #expect(decodeError(#"{"recordTypes":{},"version":1}"#)?.message.contains("unknown key 'version'") == true)
        #expect(decodeError(#"{"recordTypes":{"Note":{"field":{}}}}"#)?.message.contains("record type 'Note' has unknown key 'field'") == true)
    }

    @Test func unknownFieldTypeIsNamed() {
        let error = decodeError(#"{"recordTypes":{"Note":{"fields":{"title":{"type":"STRNG"}}}}}"#)
        #expect(error?.code == .invalidSchema)
        #expect(error?.field == "title")
        #expect(error?.message.contains("unknown type 'STRNG'; use one of STRING, INT64") == true)
    }

    @Test func missingOrMistypedTypeIsNamed() {
        #expect(decodeError(#"{"recordTypes":{"Note":{"fields":{"title":{}}}}}"#)?.message == "field 'title' of record type 'Note' has no 'type'")
        #expect(decodeError(#"{"recordTypes":{"Note":{"fields":{"title":{"type":3}}}}}"#)?.message.contains("must be a string; got an integer") == true)
        #expect(
            decodeError(#"{"recordTypes":{"Note":{"fields":{"title":{"type":"STRING","sortable":1}}}}}"#)?.message.contains(
                "'sortable' of field 'title' of record type 'Note' must be true or false") == true)
    }

    @Test func invalidFieldNameIsRefused() {
        let error = decodeError(#"{"recordTypes":{"Note":{"fields":{"1st":{"type":"STRING"}}}}}"#)
        #expect(error?.code == .invalidSchema)
        #expect(error?.message.contains("field name '1st' is invalid") == true)
        #expect(error?.message.contains("record type 'Note'") == true)
    }

    @Test func invalidRecordTypeNameIsRefused() {
        let error = decodeError(#"{"recordTypes":{"_Note":{"fields":{}}}}"#)
        #expect(error?.code == .invalidSchema)
        #expect(error?.recordType == "_Note")
    }

    @Test func unknownListIsNotAFieldType() {
        let error = decodeError(#"{"recordTypes":{"Note":{"fields":{"tags":{"type":"UNKNOWN_LIST"}}}}}"#)
        #expect(error?.message.contains("UNKNOWN_LIST") == true)
    }

    @Test func onlyStringsCanBeSearchableAndListsCannotBeSortable() {
        #expect(decodeError(#"{"recordTypes":{"Note":{"fields":{"n":{"type":"INT64","searchable":true}}}}}"#)?.message.contains("cannot be searchable") == true)
        #expect(decodeError(#"{"recordTypes":{"Note":{"fields":{"t":{"type":"STRING_LIST","searchable":true}}}}}"#) == nil)
        #expect(
            decodeError(#"{"recordTypes":{"Note":{"fields":{"t":{"type":"STRING_LIST","sortable":true}}}}}"#)?.message.contains("cannot be sortable") == true)
    }

    @Test func justInTimeFieldsAreValid() throws {
        var schema = Schema()
        for type in FieldType.allCases where type != .unknownList {
            schema.recordTypes["All", default: RecordTypeSchema()].fields["f_\(type.rawValue)"] = .justInTime(type)
        }
        try SchemaDeployment.validate(schema)
    }

    // MARK: Plans

    @Test func addingTypesAndFieldsIsPlannedInOrder() throws {
        var proposed = Self.note
        proposed.recordTypes["Note"]?.fields["body"] = FieldSchema(type: .string)
        proposed.recordTypes["Tag"] = RecordTypeSchema(fields: ["name": FieldSchema(type: .string)])
        let plan = try SchemaDeployment.plan(from: Self.note, to: proposed, environment: .production)
        #expect(plan.schema == proposed)
        #expect(
            plan.changes == [
                .addedField(recordType: "Note", field: "body", FieldSchema(type: .string)),
                .addedRecordType("Tag"),
                .addedField(recordType: "Tag", field: "name", FieldSchema(type: .string)),
            ])
        #expect(
            plan.changes.map(\.description) == [
                "+ field Note.body STRING (queryable, sortable)", "+ record type Tag", "+ field Tag.name STRING (queryable, sortable)",
            ])
    }

    @Test func flippingIndexFlagsIsAllowed() throws {
        var proposed = Self.note
        proposed.recordTypes["Note"]?.fields["title"]?.searchable = false
        let plan = try SchemaDeployment.plan(from: Self.note, to: proposed, environment: .development)
        #expect(plan.changes.count == 1)
        #expect(plan.changes.first?.description == "~ field Note.title indexes: queryable, sortable, searchable → queryable, sortable")
    }

    @Test func identicalSchemaPlansNothing() throws {
        #expect(try SchemaDeployment.plan(from: Self.note, to: Self.note, environment: .production).isEmpty)
        #expect(try SchemaDeployment.plan(from: Schema(), to: Schema(), environment: .production).isEmpty)
    }

    @Test func removingAFieldIsRefusedNamingIt() {
        var proposed = Self.note
        proposed.recordTypes["Note"]?.fields["due"] = nil
        #expect {
            try SchemaDeployment.plan(from: Self.note, to: proposed, environment: .production)
        } throws: { error in
            guard let error = error as? SchemaError else { return false }
            return error.code == .incompatibleChange && error.field == "due" && error.recordType == "Note"
                && error.message.contains("field 'due' of record type 'Note' is in the production schema but not in the new schema")
        }
    }

    @Test func removingARecordTypeIsRefusedNamingIt() {
        #expect {
            try SchemaDeployment.plan(from: Self.note, to: Schema(), environment: .development)
        } throws: { error in
            (error as? SchemaError)?.message.contains("record type 'Note' is in the development schema but not in the new schema") == true
        }
    }

    @Test func retypingAFieldIsRefusedNamingIt() {
        var proposed = Self.note
        proposed.recordTypes["Note"]?.fields["due"]?.type = .int64
        #expect {
            try SchemaDeployment.plan(from: Self.note, to: proposed, environment: .production)
        } throws: { error in
            (error as? SchemaError)?.message
                == "field 'due' of record type 'Note' is TIMESTAMP in the production schema; it cannot become INT64, because fields cannot be retyped"
        }
    }
}
