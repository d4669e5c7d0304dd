import StratusStore
import Testing

@Suite struct ModelValidationTests {
    /// The library model used by the other tests is valid.
    @Test func consistentModelIsAccepted() throws {
        let model = try LibraryModel.make()
        #expect(model.versionIdentifier == "1")
        #expect(model.entity(named: "Book")?.relationship(named: "author")?.inverseName == "books")
    }

    /// An inverse that does not point back is rejected with a message naming both sides.
    @Test func inverseThatDoesNotPointBackIsRejected() {
        let error = #expect(throws: StoreError.self) {
            try ObjectModel(
                version: "1",
                entities: [
                    EntityDescription("A", relationships: [.toMany("bs", destination: "B", inverse: "a")]),
                    EntityDescription(
                        "B",
                        relationships: [
                            .toOne("a", destination: "A", inverse: "others"),
                            .toMany("others", destination: "A", inverse: nil),
                        ]),
                ])
        }
        #expect(error?.code == .invalidModel)
        #expect(error?.message.contains("entity \"A\", relationship \"bs\": its inverse \"B.a\" has \"others\" as its inverse") == true)
    }

    /// A relationship to a missing entity, or with a missing inverse, is rejected.
    @Test func missingDestinationAndInverseAreRejected() {
        let error = #expect(throws: StoreError.self) {
            try ObjectModel(
                version: "1",
                entities: [
                    EntityDescription(
                        "A",
                        relationships: [
                            .toOne("ghost", destination: "Ghost", inverse: nil),
                            .toOne("b", destination: "B", inverse: "missing"),
                        ]),
                    EntityDescription("B"),
                ])
        }
        #expect(error?.message.contains("the destination entity \"Ghost\" does not exist") == true)
        #expect(error?.message.contains("the inverse \"missing\" is not a relationship of \"B\"") == true)
    }

    /// Names that clash, are reserved or are not identifiers are rejected, all in one error.
    @Test func badNamesAreRejectedTogether() {
        let error = #expect(throws: StoreError.self) {
            try ObjectModel(
                version: "",
                entities: [
                    EntityDescription("Note", attributes: [AttributeDescription("text", .string), AttributeDescription("Text", .string)]),
                    EntityDescription("note"),
                    EntityDescription("Z_Internal"),
                    EntityDescription("1st"),
                    EntityDescription("Bad-Name"),
                ])
        }
        let message = error?.message ?? ""
        #expect(message.contains("the version identifier is empty"))
        #expect(message.contains("has two properties named \"Text\""))
        #expect(message.contains("entity \"note\" is declared twice"))
        #expect(message.contains("reserved for the store"))
        #expect(message.contains("must start with an ASCII letter"))
        #expect(message.contains("may hold only ASCII letters"))
    }

    /// A default value of the wrong type and constraints on unknown attributes are rejected.
    @Test func defaultValuesAndConstraintsAreChecked() {
        let error = #expect(throws: StoreError.self) {
            try ObjectModel(
                version: "1",
                entities: [
                    EntityDescription(
                        "Note",
                        attributes: [AttributeDescription("count", .integer16, defaultValue: .string("zero"))],
                        relationships: [.toMany("children", destination: "Note", inverse: nil)],
                        uniquenessConstraints: [["nope"]], indexes: [["children"]])
                ])
        }
        let message = error?.message ?? ""
        #expect(message.contains("the default value \"zero\" is of type string, not integer16"))
        #expect(message.contains("uniqueness constraint [\"nope\"]"))
        #expect(message.contains("index [\"children\"]: \"children\" is not an attribute or to-one relationship"))
    }

    /// Integer defaults of another width are accepted when the value fits.
    @Test func integerDefaultsConvertWhenTheyFit() throws {
        _ = try ObjectModel(
            version: "1", entities: [EntityDescription("N", attributes: [AttributeDescription("n", .integer16, defaultValue: .integer64(7))])])
    }
}
