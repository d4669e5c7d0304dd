import Foundation
import StratusStore
import Testing

@Suite struct FetchRequestTests {
    /// A saved library: three authors, six books.
    static func seed(_ stack: TestStack) async throws {
        let context = stack.container.newBackgroundContext()
        try await context.perform { context in
            let rows: [(String, Int32?, [(String, Int32?, String?)])] = [
                ("Ursula Le Guin", 1929, [("A Wizard of Earthsea", 183, "a1"), ("The Dispossessed", 387, "a2")]),
                ("Frank Herbert", 1920, [("Dune", 412, "b1"), ("Dune Messiah", 256, nil)]),
                ("Émile Zola", nil, [("Germinal", 592, "c1"), ("L'Œuvre", nil, nil)]),
            ]
            for (name, born, books) in rows {
                let author = context.insert(entity: "Author")
                author.setValue(name, forKey: "name")
                author.setValue(born, forKey: "born")
                for (title, pages, isbn) in books {
                    let book = context.insert(entity: "Book")
                    book.setValue(title, forKey: "title")
                    book.setValue(pages, forKey: "pages")
                    book.setValue(isbn, forKey: "isbn")
                    book.setValue(author, forKey: "author")
                }
            }
            try context.save()
        }
        try await context.saveChain()
    }

    static let title = PredicateKey<String>("title")
    static let pages = PredicateKey<Int>("pages")
    static let isbn = PredicateKey<String>("isbn")
    static let authorName = PredicateKey<String>("author.name")
    static let authorBorn = PredicateKey<Int>("author.born")

    /// Each predicate kind, with the titles it must select from the seed data.
    static let cases: [(String, FetchPredicate, [String])] = [
        ("==", title == "Dune", ["Dune"]),
        (
            "!= includes nil", isbn != "a1",
            ["A Wizard of Earthsea", "Dune", "Dune Messiah", "Germinal", "L'Œuvre", "The Dispossessed"].filter { $0 != "A Wizard of Earthsea" }
        ),
        ("== nil", isbn == nil, ["Dune Messiah", "L'Œuvre"]),
        ("!= nil", pages != nil, ["A Wizard of Earthsea", "Dune", "Dune Messiah", "Germinal", "The Dispossessed"]),
        ("<", pages < 256, ["A Wizard of Earthsea"]),
        ("<=", pages <= 256, ["A Wizard of Earthsea", "Dune Messiah"]),
        (">", pages > 400, ["Dune", "Germinal"]),
        (">=", pages >= 412, ["Dune", "Germinal"]),
        ("in", title.isIn(["Dune", "Germinal", "Missing"]), ["Dune", "Germinal"]),
        ("beginsWith", title.beginsWith("Dune"), ["Dune", "Dune Messiah"]),
        ("beginsWith is case-sensitive", title.beginsWith("dune"), []),
        ("beginsWith [c]", title.beginsWith("dune", options: .caseInsensitive), ["Dune", "Dune Messiah"]),
        ("contains", title.contains("of"), ["A Wizard of Earthsea"]),
        ("contains [c]", title.contains("THE", options: .caseInsensitive), ["The Dispossessed"]),
        ("contains [c] non-ASCII", title.contains("œ", options: .caseInsensitive), ["L'Œuvre"]),
        ("endsWith", title.endsWith("sea"), ["A Wizard of Earthsea"]),
        ("and", pages > 200 && title.beginsWith("D"), ["Dune", "Dune Messiah"]),
        ("or", title == "Dune" || pages < 200, ["A Wizard of Earthsea", "Dune"]),
        ("not over unknown excludes nil", !(pages > 300), ["A Wizard of Earthsea", "Dune Messiah"]),
        ("key path ==", authorName == "Frank Herbert", ["Dune", "Dune Messiah"]),
        ("key path [cd]", authorName.beginsWith("emile", options: [.caseInsensitive, .diacriticInsensitive]), ["Germinal", "L'Œuvre"]),
        ("key path <", authorBorn < 1925, ["Dune", "Dune Messiah"]),
        ("key path == nil", authorBorn == nil, ["Germinal", "L'Œuvre"]),
        ("all", .all, ["A Wizard of Earthsea", "Dune", "Dune Messiah", "Germinal", "L'Œuvre", "The Dispossessed"]),
        ("none", .none, []),
    ]

    /// Every predicate kind selects the right objects from the store.
    @Test(arguments: 0..<cases.count) func predicateSelectsStoredObjects(index: Int) async throws {
        let (name, predicate, expected) = Self.cases[index]
        let stack = try await TestStack()
        try await Self.seed(stack)
        let titles = try await stack.container.newBackgroundContext().perform { context in
            try context.all("Book", sortedBy: "title", predicate).compactMap { $0.string("title") }
        }
        #expect(titles == expected, "\(name)")
    }

    /// Evaluated in memory over unsaved changes, every predicate agrees with SQL.
    @Test(arguments: 0..<cases.count) func predicateAgreesInMemory(index: Int) async throws {
        let (name, predicate, expected) = Self.cases[index]
        let stack = try await TestStack()
        try await Self.seed(stack)
        let titles = try await stack.container.newBackgroundContext().perform { context in
            // An unsaved change to each book and author sends every candidate through in-memory evaluation.
            for book in try context.all("Book") { book.setValue(book.string("title"), forKey: "title") }
            for author in try context.all("Author") { author.setValue(author.string("name"), forKey: "name") }
            return try context.all("Book", sortedBy: "title", predicate).compactMap { $0.string("title") }
        }
        #expect(titles == expected, "\(name)")
    }

    /// Fetches see unsaved insertions, changes and deletions of the context and of its parent.
    @Test func fetchSeesUnsavedChangesOfContextAndAncestors() async throws {
        let stack = try await TestStack()
        try await Self.seed(stack)
        // Unsaved in the view context: a new Dune book, and Germinal renamed.
        try await stack.container.viewContext.perform { context in
            let book = context.insert(entity: "Book")
            book.setValue("Dune Prophecy", forKey: "title")
            let germinal = try #require(try context.all("Book", sortedBy: nil, Self.title == "Germinal").first)
            germinal.setValue("Dune (not really)", forKey: "title")
        }
        let child = stack.container.newBackgroundContext()
        let titles = try await child.perform { context in
            // Unsaved in the child: Dune Messiah deleted, a new one inserted.
            let messiah = try #require(try context.all("Book", sortedBy: nil, Self.title == "Dune Messiah").first)
            context.delete(messiah)
            context.insert(entity: "Book").setValue("Dune, Children of", forKey: "title")
            var request = FetchRequest(
                entityName: "Book", predicate: Self.title.beginsWith("Dune"), sortDescriptors: [.descending("title")])
            let all = try context.fetch(request).compactMap { $0.string("title") }
            #expect(try context.count(for: request) == 4)
            request.fetchOffset = 1
            request.fetchLimit = 2
            let page = try context.fetch(request).compactMap { $0.string("title") }
            #expect(try context.fetchObjectIDs(request).count == 2)
            #expect(try context.count(for: request) == 2)
            return [all, page]
        }
        #expect(titles[0] == ["Dune, Children of", "Dune Prophecy", "Dune (not really)", "Dune"])
        #expect(titles[1] == ["Dune Prophecy", "Dune (not really)"])
    }

    /// A key path through a relationship whose target changed in an ancestor is evaluated with the new value.
    @Test func keyPathSeesUnsavedChangesOfRelatedObjects() async throws {
        let stack = try await TestStack()
        try await Self.seed(stack)
        try await stack.container.viewContext.perform { context in
            let frank = try #require(try context.all("Author", sortedBy: nil, PredicateKey<String>("name") == "Frank Herbert").first)
            frank.setValue("F. Herbert", forKey: "name")
        }
        let count = try await stack.container.newBackgroundContext().perform { context in
            try context.count("Book", Self.authorName == "F. Herbert")
        }
        #expect(count == 2)
    }

    /// Sort descriptors order results, through key paths, with limit and offset, in SQL.
    @Test func sortLimitAndOffsetInSQL() async throws {
        let stack = try await TestStack()
        try await Self.seed(stack)
        try await stack.container.newBackgroundContext().perform { context in
            let request = FetchRequest(
                entityName: "Book", sortDescriptors: [.ascending("author.name"), .descending("pages")], fetchLimit: 3,
                fetchOffset: 1)
            let titles = try context.fetch(request).compactMap { $0.string("title") }
            #expect(titles == ["Dune Messiah", "The Dispossessed", "A Wizard of Earthsea"])
            #expect(try context.count(for: request) == 3)
            let byPrice = FetchRequest(entityName: "Book", sortDescriptors: [.ascending("price"), .ascending("title")], fetchLimit: 1)
            #expect(try context.fetch(byPrice).first?.string("title") == "A Wizard of Earthsea")
        }
    }

    /// Objects can be fetched by ID and relationship target.
    @Test func objectIDPredicates() async throws {
        let stack = try await TestStack()
        try await Self.seed(stack)
        try await stack.container.newBackgroundContext().perform { context in
            let frank = try #require(try context.all("Author", sortedBy: nil, PredicateKey<String>("name") == "Frank Herbert").first)
            let books = try context.all("Book", sortedBy: "title", PredicateKey<ObjectID>("author") == frank.objectID)
            #expect(books.compactMap { $0.string("title") } == ["Dune", "Dune Messiah"])
            let picked = try context.fetchObjectIDs(FetchRequest(entityName: "Book", predicate: .objectIDs(in: [books[0].objectID])))
            #expect(picked == [books[0].objectID])
        }
    }
}
