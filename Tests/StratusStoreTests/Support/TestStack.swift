import Foundation
import StratusStore
import StratusTesting

/// The library model used across the tests: authors, books, tags, publishers and an entity with every attribute type.
enum LibraryModel {
    static func entities() -> [EntityDescription] {
        [
            EntityDescription(
                "Publisher",
                attributes: [AttributeDescription("name", .string)],
                relationships: [.toMany("authors", destination: "Author", inverse: "publisher", deleteRule: .deny)]),
            EntityDescription(
                "Author",
                attributes: [
                    AttributeDescription("name", .string),
                    AttributeDescription("born", .integer32, isOptional: true),
                ],
                relationships: [
                    .toMany("books", destination: "Book", inverse: "author", deleteRule: .cascade),
                    .toOne("publisher", destination: "Publisher", inverse: "authors"),
                ],
                indexes: [["name"]]),
            EntityDescription(
                "Book",
                attributes: [
                    AttributeDescription("title", .string),
                    AttributeDescription("pages", .integer32, isOptional: true),
                    AttributeDescription("isbn", .string, isOptional: true),
                    AttributeDescription("price", .decimal, isOptional: true),
                ],
                relationships: [
                    .toOne("author", destination: "Author", inverse: "books"),
                    .toMany("tags", destination: "Tag", inverse: "books"),
                    .toOne("cover", destination: "Cover", inverse: "book", deleteRule: .cascade),
                ],
                uniquenessConstraints: [["isbn"]]),
            EntityDescription(
                "Tag",
                attributes: [AttributeDescription("label", .string)],
                relationships: [.toMany("books", destination: "Book", inverse: "tags")]),
            EntityDescription(
                "Cover",
                attributes: [AttributeDescription("color", .string, isOptional: true)],
                relationships: [.toOne("book", destination: "Book", inverse: "cover", deleteRule: .noAction)]),
            EntityDescription(
                "Sample",
                attributes: [
                    AttributeDescription("string", .string, isOptional: true),
                    AttributeDescription("int16", .integer16, isOptional: true),
                    AttributeDescription("int32", .integer32, isOptional: true),
                    AttributeDescription("int64", .integer64, isOptional: true),
                    AttributeDescription("double", .double, isOptional: true),
                    AttributeDescription("decimal", .decimal, isOptional: true),
                    AttributeDescription("bool", .boolean, isOptional: true),
                    AttributeDescription("date", .date, isOptional: true),
                    AttributeDescription("data", .binaryData, isOptional: true),
                    AttributeDescription("uuid", .uuid, isOptional: true),
                    AttributeDescription("uri", .uri, isOptional: true),
                    AttributeDescription("rating", .integer16, defaultValue: .integer16(3)),
                ]),
        ]
    }

    static func make(version: String = "1") throws -> ObjectModel {
        try ObjectModel(version: version, entities: entities())
    }
}

/// A container on a fresh temporary file, loaded; the directory goes away with the value.
struct TestStack {
    let directory: TemporaryDirectory
    let container: PersistentContainer

    var url: URL { container.url }

    init(model: ObjectModel? = nil) async throws {
        directory = try TemporaryDirectory(prefix: "stratus-store")
        container = PersistentContainer(
            name: "Test", model: try model ?? LibraryModel.make(), url: directory.url.appendingPathComponent("store.sqlite"))
        try await container.loadPersistentStores()
    }

    /// A second container on the same file, loaded: what a relaunched app sees.
    func reopened(model: ObjectModel? = nil) async throws -> PersistentContainer {
        let container = PersistentContainer(name: "Reopened", model: try model ?? LibraryModel.make(), url: url)
        try await container.loadPersistentStores()
        return container
    }
}

extension ObjectContext {
    /// The number of objects of an entity, as this context sees them.
    func count(_ entityName: String, _ predicate: FetchPredicate? = nil) throws -> Int {
        try count(for: FetchRequest(entityName: entityName, predicate: predicate))
    }

    /// The objects of an entity, as this context sees them, sorted by `key`.
    func all(_ entityName: String, sortedBy key: String? = nil, _ predicate: FetchPredicate? = nil) throws -> [ManagedObject] {
        try fetch(
            FetchRequest(
                entityName: entityName, predicate: predicate, sortDescriptors: key.map { [.ascending($0)] } ?? []))
    }
}

extension ManagedObject {
    /// The string value of `key`.
    func string(_ key: String) -> String? {
        value(forKey: key, as: String.self)
    }
}
