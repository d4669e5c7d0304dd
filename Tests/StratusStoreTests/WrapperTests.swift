import Foundation
import StratusStore
import StratusTesting
import Testing

/// A typed author, as app code writes one.
private struct Author: ManagedObjectWrapper {
    static let entityName = "Author"
    let object: ManagedObject
    init(object: ManagedObject) { self.object = object }

    var name: String {
        get { attribute("name") }
        nonmutating set { setAttribute("name", newValue) }
    }
    var born: Int32? {
        get { attribute("born") }
        nonmutating set { setAttribute("born", newValue) }
    }
    var books: [Book] {
        get { relatedSet("books") }
        nonmutating set { setRelatedSet("books", newValue) }
    }
}

/// A typed book, as a `final class`.
private final class Book: ManagedObjectWrapper {
    static let entityName = "Book"
    let object: ManagedObject
    init(object: ManagedObject) { self.object = object }

    var title: String {
        get { attribute("title") }
        set { setAttribute("title", newValue) }
    }
    var pages: Int32? {
        get { attribute("pages") }
        set { setAttribute("pages", newValue) }
    }
    var author: Author? {
        get { related("author") }
        set { setRelated("author", newValue) }
    }
}

extension Int32? {
    /// The number, or `"nil"`.
    fileprivate var text: String { map { "\($0)" } ?? "nil" }
}

@Suite struct WrapperTests {
    /// Typed properties write and read the wrapped object; optional attributes read `nil` until set.
    @Test func createAndRead() async throws {
        let stack = try await TestStack()
        let values = await stack.container.newBackgroundContext().perform { context in
            let author = context.insert(Author.self)
            author.name = "Ursula K. Le Guin"
            let unsetBorn = author.born
            author.born = 1929
            let book = context.insert(Book.self)
            book.title = "The Dispossessed"
            let unsetPages = book.pages
            book.pages = 387
            book.pages = nil
            return [
                author.name, unsetBorn.text, author.born.text,
                book.title, unsetPages.text, book.pages.text,
                book.object.value(forKey: "title", as: String.self) ?? "nil",
            ]
        }
        #expect(values == ["Ursula K. Le Guin", "nil", "1929", "The Dispossessed", "nil", "nil", "The Dispossessed"])
    }

    /// Setting a to-one through a wrapper updates the inverse to-many, and the typed helpers edit to-many sets.
    @Test func relate() async throws {
        let stack = try await TestStack()
        let titles = try await stack.container.newBackgroundContext().perform { context in
            let author = context.insert(Author.self)
            author.name = "Frank Herbert"
            let dune = context.insert(Book.self)
            dune.title = "Dune"
            dune.author = author
            let messiah = context.insert(Book.self)
            messiah.title = "Dune Messiah"
            author.add(messiah, to: "books")
            let afterLinking = author.books.map(\.title).sorted()
            let messiahAuthor = messiah.author?.name
            author.remove(dune, from: "books")
            let duneAuthor = dune.author?.name
            author.books = [dune]
            let replaced = author.books.map(\.title)
            try context.save()
            return [
                afterLinking.joined(separator: ","), messiahAuthor ?? "nil", duneAuthor ?? "nil",
                replaced.joined(separator: ","), messiah.author?.name ?? "nil",
            ]
        }
        #expect(titles == ["Dune,Dune Messiah", "Frank Herbert", "nil", "Dune", "nil"])
    }

    /// Typed fetches take a predicate, a sort order and a limit, or a request built for the type.
    @Test func fetchTyped() async throws {
        let stack = try await TestStack()
        let results = try await stack.container.newBackgroundContext().perform { context in
            let author = context.insert(Author.self)
            author.name = "Iain M. Banks"
            for (title, pages) in [("Excession", 451), ("Consider Phlebas", 471), ("Inversions", 345)] {
                let book = context.insert(Book.self)
                book.title = title
                book.pages = Int32(pages)
                book.author = author
            }
            try context.save()
            let long = try context.fetch(
                Book.self, where: PredicateKey<Int32>("pages") > 400, sortedBy: [.ascending("title")])
            let first = try context.fetch(Book.self, sortedBy: [.descending("pages")], limit: 1)
            let byAuthor = try context.fetch(
                FetchRequest(
                    for: Book.self, predicate: PredicateKey<String>("author.name") == "Iain M. Banks",
                    sortDescriptors: [.ascending("pages")]),
                as: Book.self)
            let count = try context.count(Book.self, where: PredicateKey<Int32>("pages") < 400)
            let found = try context.existingObject(Book.self, with: long[0].objectID)
            return [
                long.map(\.title).joined(separator: ","), first.map(\.title).joined(separator: ","),
                byAuthor.map(\.title).joined(separator: ","), "\(count)", found.title,
                "\(found.object === long[0].object)",
            ]
        }
        #expect(
            results == [
                "Consider Phlebas,Excession", "Consider Phlebas", "Inversions,Excession,Consider Phlebas", "1",
                "Consider Phlebas", "true",
            ])
    }

    /// Typed objects go background → view → root → disk, come back in a reopened store, and edits follow.
    @Test func roundTripThroughSaveChain() async throws {
        let stack = try await TestStack()
        let background = stack.container.newBackgroundContext()
        let bookID = try await background.perform { context in
            let author = context.insert(Author.self)
            author.name = "Octavia E. Butler"
            author.born = 1947
            let book = context.insert(Book.self)
            book.title = "Kindred"
            book.pages = 264
            book.author = author
            try context.save()
            return book.objectID
        }
        try await background.saveChain()

        let view = stack.container.viewContext
        let seen = await view.perform { context in
            let book = context.object(Book.self, with: bookID)
            return [book.title, book.author?.name ?? "nil", book.author?.books.map(\.title).joined() ?? "nil"]
        }
        #expect(seen == ["Kindred", "Octavia E. Butler", "Kindred"])

        let reopened = try await stack.reopened()
        let editor = reopened.newBackgroundContext()
        try await editor.perform { context in
            let books = try context.fetch(Book.self, where: PredicateKey<String>("author.name") == "Octavia E. Butler")
            #expect(books.map(\.title) == ["Kindred"])
            books[0].title = "Kindred (1979)"
            books[0].author?.born = nil
            try context.save()
        }
        try await editor.saveChain()
        let again = try await stack.reopened()
        let final = try await again.newBackgroundContext().perform { context in
            let author = try #require(try context.fetch(Author.self).first)
            return [author.name, author.born.text, author.books.map(\.title).joined()]
        }
        #expect(final == ["Octavia E. Butler", "nil", "Kindred (1979)"])
    }

    /// Wrapping an object of another entity stops the program, naming both entities.
    @Test func wrongEntityStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = try TemporaryDirectory()
            let container = PersistentContainer(
                name: "Misuse", model: try LibraryModel.make(), url: directory.url.appendingPathComponent("store.sqlite"))
            try await container.loadPersistentStores()
            container.viewContext.performAndWait { context in
                let author = context.insert(entity: "Author")
                _ = Book(wrapping: author)
            }
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("Book wraps objects of entity \"Book\", not \"Author\""))
    }

    /// A typed fetch with a request for another entity stops the program, naming both entities.
    @Test func fetchWithAnotherEntitysRequestStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = try TemporaryDirectory()
            let container = PersistentContainer(
                name: "Misuse", model: try LibraryModel.make(), url: directory.url.appendingPathComponent("store.sqlite"))
            try await container.loadPersistentStores()
            try container.viewContext.performAndWait { context in
                _ = try context.fetch(FetchRequest(entityName: "Author"), as: Book.self)
            }
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("request for entity \"Author\": Book wraps entity \"Book\""))
    }

    /// Reading an unset attribute as a non-optional type stops the program, naming the key.
    @Test func unsetRequiredAttributeStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = try TemporaryDirectory()
            let container = PersistentContainer(
                name: "Misuse", model: try LibraryModel.make(), url: directory.url.appendingPathComponent("store.sqlite"))
            try await container.loadPersistentStores()
            container.viewContext.performAndWait { context in
                _ = context.insert(Book.self).title
            }
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("Book.title is unset, which String cannot hold"))
    }
}
