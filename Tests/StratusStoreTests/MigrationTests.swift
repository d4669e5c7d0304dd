import Foundation
import StratusStore
import StratusTesting
import Synchronization
import Testing

/// Lightweight migration of populated stores between model versions.
@Suite struct MigrationTests {
    /// Version 2 of the library model: Book renamed Volume, title renamed heading, pages made required with a default,
    /// attributes added (one required with a default), a new Shelf entity with a new relationship, Sample dropped,
    /// Author.born dropped, and the Tag↔Volume join table now owned by the other side.
    static func version2() throws -> ObjectModel {
        try ObjectModel(
            version: "2",
            entities: [
                EntityDescription(
                    "Publisher",
                    attributes: [AttributeDescription("name", .string)],
                    relationships: [.toMany("authors", destination: "Author", inverse: "publisher", deleteRule: .deny)]),
                EntityDescription(
                    "Author",
                    attributes: [AttributeDescription("name", .string)],
                    relationships: [
                        .toMany("volumes", destination: "Volume", inverse: "author", deleteRule: .cascade, renamingIdentifier: "books"),
                        .toOne("publisher", destination: "Publisher", inverse: "authors"),
                    ],
                    indexes: [["name"]]),
                EntityDescription(
                    "Volume",
                    attributes: [
                        AttributeDescription("heading", .string, renamingIdentifier: "title"),
                        AttributeDescription("pages", .integer32, defaultValue: .integer32(100)),
                        AttributeDescription("isbn", .string, isOptional: true),
                        AttributeDescription("price", .decimal, isOptional: true),
                        AttributeDescription("language", .string, defaultValue: .string("en")),
                        AttributeDescription("subtitle", .string, isOptional: true),
                    ],
                    relationships: [
                        .toOne("author", destination: "Author", inverse: "volumes"),
                        .toMany("tags", destination: "Tag", inverse: "volumes"),
                        .toOne("cover", destination: "Cover", inverse: "volume", deleteRule: .cascade),
                        .toOne("shelf", destination: "Shelf", inverse: "volumes"),
                    ],
                    uniquenessConstraints: [["isbn"]],
                    renamingIdentifier: "Book"),
                EntityDescription(
                    "Tag",
                    attributes: [AttributeDescription("label", .string)],
                    relationships: [.toMany("volumes", destination: "Volume", inverse: "tags", renamingIdentifier: "books")]),
                EntityDescription(
                    "Cover",
                    attributes: [AttributeDescription("color", .string, isOptional: true)],
                    relationships: [
                        .toOne("volume", destination: "Volume", inverse: "cover", deleteRule: .noAction, renamingIdentifier: "book")
                    ]),
                EntityDescription(
                    "Shelf",
                    attributes: [AttributeDescription("name", .string)],
                    relationships: [.toMany("volumes", destination: "Volume", inverse: "shelf")]),
            ])
    }

    /// A store with 2 authors, 50 books (every other one without pages, each tagged), 3 tags and a cover.
    private static func populate(_ stack: TestStack) async throws -> (books: [ObjectID], tags: [ObjectID]) {
        let background = stack.container.newBackgroundContext()
        let ids = try await background.perform { context in
            let authors = ["Le Guin", "Herbert"].map { name in
                let author = context.insert(entity: "Author")
                author.setValue(name, forKey: "name")
                author.setValue(1929, forKey: "born")
                return author
            }
            let tags = ["a", "b", "c"].map { label in
                let tag = context.insert(entity: "Tag")
                tag.setValue(label, forKey: "label")
                return tag
            }
            var books: [ManagedObject] = []
            for index in 0..<50 {
                let book = context.insert(entity: "Book")
                book.setValue("Book \(index)", forKey: "title")
                if index.isMultiple(of: 2) { book.setValue(200 + index, forKey: "pages") }
                book.setValue(authors[index % 2], forKey: "author")
                book.addObject(tags[index % 3], forKey: "tags")
                books.append(book)
            }
            let cover = context.insert(entity: "Cover")
            cover.setValue("blue", forKey: "color")
            books[0].setValue(cover, forKey: "cover")
            context.insert(entity: "Sample").setValue("gone", forKey: "string")
            try context.save()
            return (books.map(\.objectID), tags.map(\.objectID))
        }
        try await background.saveChain()
        return ids
    }

    /// A populated store opens with version 2: values, relationships and history are kept, new values take their defaults.
    @Test func populatedStoreMigratesToTheNextVersion() async throws {
        let stack = try await TestStack()
        let (books, tags) = try await Self.populate(stack)
        try stack.container.close()

        let reported = Mutex<[Double]>([])
        let container = PersistentContainer(name: "Migrated", model: try Self.version2(), url: stack.url)
        try await container.loadPersistentStores { fraction in reported.withLock { $0.append(fraction) } }
        let progress = reported.withLock { $0 }
        #expect(progress.first == 0)
        #expect(progress.last == 1)
        #expect(progress == progress.sorted())

        let volume: @Sendable (ObjectID) -> ObjectID? = { id in ObjectID(stringRepresentation: "Volume/p\(id.primaryKey ?? 0)") }
        let context = container.newBackgroundContext()
        let summary = try await context.perform { context in
            let first = try context.existingObject(with: try #require(volume(books[0])))
            let second = try context.existingObject(with: try #require(volume(books[1])))
            let tag = context.object(with: try #require(ObjectID(stringRepresentation: "Tag/p\(tags[0].primaryKey ?? 0)")))
            return [
                "\(try context.count("Volume"))", "\(try context.count("Author"))",
                first.string("heading") ?? "nil", "\(first.value(forKey: "pages", as: Int32.self) ?? -1)",
                "\(second.value(forKey: "pages", as: Int32.self) ?? -1)", second.string("language") ?? "nil",
                second.string("subtitle") ?? "nil",
                (first.value(forKey: "author", as: ManagedObject.self)?.string("name")) ?? "nil",
                first.value(forKey: "cover", as: ManagedObject.self)?.string("color") ?? "nil",
                "\(tag.objectIDs(forKey: "volumes").count)",
                "\(try context.count("Volume", PredicateKey<String>("heading").beginsWith("Book 4")))",
            ]
        }
        #expect(summary == ["50", "2", "Book 0", "200", "100", "en", "nil", "Le Guin", "blue", "17", "11"])

        // The new parts are usable and keys continue after the migrated rows.
        let shelfBooks = try await context.perform { context in
            let shelf = context.insert(entity: "Shelf")
            shelf.setValue("Sci-fi", forKey: "name")
            let added = context.insert(entity: "Volume")
            added.setValue("New", forKey: "heading")
            added.setValue(shelf, forKey: "shelf")
            context.object(with: try #require(volume(books[3]))).setValue(shelf, forKey: "shelf")
            try context.save()
            return [added.objectID.primaryKey ?? 0, Int64(shelf.objectIDs(forKey: "volumes").count)]
        }
        #expect(shelfBooks[0] > books.compactMap(\.primaryKey).max() ?? 0)
        #expect(shelfBooks[1] == 2)
        try await context.saveChain()

        // History recorded before the migration now names the renamed entity.
        let history = try await container.history(after: nil)
        #expect(history.first?.changes.contains { $0.objectID == volume(books[0]) && $0.kind == .inserted } == true)
        #expect(history.count == 2)
        try container.close()

        // Reopening with version 2 needs no migration.
        let again = PersistentContainer(name: "Again", model: try Self.version2(), url: stack.url)
        let calls = Mutex(0)
        try await again.loadPersistentStores { _ in calls.withLock { $0 += 1 } }
        #expect(calls.withLock { $0 } == 0)
        #expect(try await again.newBackgroundContext().perform { try $0.count("Volume") } == 51)
    }

    /// A model whose changes cannot be inferred is refused with an error naming each change; the store is left as it was.
    @Test func incompatibleChangesAreRefusedByName() async throws {
        let stack = try await TestStack()
        _ = try await Self.populate(stack)
        try stack.container.close()
        var entities = LibraryModel.entities()
        let book = try #require(entities.firstIndex { $0.name == "Book" })
        entities[book].attributes[1] = AttributeDescription("pages", .string, isOptional: true)
        entities[book].attributes.append(AttributeDescription("edition", .integer16))
        entities[book].attributes[2] = AttributeDescription("isbn", .string)
        let changed = try ObjectModel(version: "2", entities: entities)
        let error = await #expect(throws: StoreError.self) { _ = try await stack.reopened(model: changed) }
        #expect(error?.code == .incompatibleMigration)
        let message = error?.message ?? ""
        #expect(message.contains("Book.pages changed type from integer32 to string"))
        #expect(message.contains("Book.edition was added as a required attribute without a default value"))
        #expect(message.contains("Book.isbn became required without a default value"))
        #expect(try await stack.reopened().newBackgroundContext().perform { try $0.count("Book") } == 50)
    }

    /// Filling a new required attribute of a large table reports progress chunk by chunk, in one transaction.
    @Test func largeFillReportsProgressAsItGoes() async throws {
        let stack = try await TestStack()
        let background = stack.container.newBackgroundContext(parent: .rootContext)
        try await background.perform { context in
            for index in 0..<12_000 {
                context.insert(entity: "Tag").setValue("t\(index)", forKey: "label")
            }
            try context.save()
        }
        try await stack.container.rootContext.perform { context in try context.save() }
        try stack.container.close()
        var entities = LibraryModel.entities()
        let tag = try #require(entities.firstIndex { $0.name == "Tag" })
        entities[tag].attributes.append(AttributeDescription("weight", .integer32, defaultValue: .integer32(1)))
        let reported = Mutex<[Double]>([])
        let container = PersistentContainer(name: "Large", model: try ObjectModel(version: "2", entities: entities), url: stack.url)
        try await container.loadPersistentStores { fraction in reported.withLock { $0.append(fraction) } }
        let progress = reported.withLock { $0 }
        let between = progress.filter { $0 > 0 && $0 < 1 }
        #expect(between.count >= 4, "\(progress)")  // three chunks of the fill, plus the other steps
        #expect(progress == progress.sorted())
        let weights = try await container.newBackgroundContext().perform { context in
            try context.count("Tag", PredicateKey<Int32>("weight") == 1)
        }
        #expect(weights == 12_000)
    }

    /// A new version identifier with an unchanged model migrates trivially.
    @Test func newVersionOfTheSameModelOpens() async throws {
        let stack = try await TestStack()
        _ = try await Self.populate(stack)
        try stack.container.close()
        let reopened = try await stack.reopened(model: LibraryModel.make(version: "1.1"))
        #expect(try await reopened.newBackgroundContext().perform { try $0.count("Book") } == 50)
    }
}
