import Foundation
import StratusStore
import Testing

/// `ANY` over to-many relationships: in SQL (`EXISTS`) and in memory over unsaved changes, with the same answers.
@Suite struct AnyPredicateTests {
    /// Tags on the seeded books: classic on Earthsea and Germinal, sf on both Dunes and The Dispossessed.
    static func seed(_ stack: TestStack) async throws {
        try await FetchRequestTests.seed(stack)
        let context = stack.container.newBackgroundContext()
        try await context.perform { context in
            let tags = ["classic", "sf"].map { label in
                let tag = context.insert(entity: "Tag")
                tag.setValue(label, forKey: "label")
                return tag
            }
            for book in try context.all("Book") {
                switch book.string("title") ?? "" {
                case "A Wizard of Earthsea", "Germinal": book.addObject(tags[0], forKey: "tags")
                case "Dune", "Dune Messiah", "The Dispossessed": book.addObject(tags[1], forKey: "tags")
                default: break
                }
            }
            try context.save()
        }
        try await context.saveChain()
    }

    static let cases: [(String, String, FetchPredicate, [String])] = [
        ("any to-many via inverse key", "Author", .any("books", where: PredicateKey<Int>("pages") > 400), ["Frank Herbert", "Émile Zola"]),  // UTF-8 order
        ("none via not any", "Author", !.any("books", where: PredicateKey<Int>("pages") > 400), ["Ursula Le Guin"]),
        ("any many-to-many", "Book", .any("tags", where: PredicateKey<String>("label") == "classic"), ["A Wizard of Earthsea", "Germinal"]),
        ("any at all", "Book", !.any("tags", where: .all), ["L'Œuvre"]),
        ("any with key path", "Tag", .any("books", where: PredicateKey<String>("author.name").beginsWith("Frank")), ["sf"]),
        ("nested any", "Tag", .any("books", where: .any("tags", where: PredicateKey<String>("label") == "classic")), ["classic"]),
        (
            "any and", "Author",
            .any("books", where: PredicateKey<String>("title").beginsWith("Dune")) && PredicateKey<Int>("born") < 1925,
            ["Frank Herbert"]
        ),
    ]

    private static func keyOf(_ entity: String) -> String {
        switch entity {
        case "Author": "name"
        case "Tag": "label"
        default: "title"
        }
    }

    /// Each case selects the right objects in SQL.
    @Test(arguments: 0..<cases.count) func anySelectsStoredObjects(index: Int) async throws {
        let (name, entity, predicate, expected) = Self.cases[index]
        let stack = try await TestStack()
        try await Self.seed(stack)
        let key = Self.keyOf(entity)
        let found = try await stack.container.newBackgroundContext().perform { context in
            try context.all(entity, sortedBy: key, predicate).compactMap { $0.string(key) }
        }
        #expect(found == expected, "\(name)")
    }

    /// With unsaved changes to every object, the in-memory evaluation agrees with SQL.
    @Test(arguments: 0..<cases.count) func anyAgreesInMemory(index: Int) async throws {
        let (name, entity, predicate, expected) = Self.cases[index]
        let stack = try await TestStack()
        try await Self.seed(stack)
        let key = Self.keyOf(entity)
        let found = try await stack.container.newBackgroundContext().perform { context in
            for (entity, key) in [("Book", "title"), ("Author", "name"), ("Tag", "label")] {
                for object in try context.all(entity) { object.setValue(object.string(key), forKey: key) }
            }
            return try context.all(entity, sortedBy: key, predicate).compactMap { $0.string(key) }
        }
        #expect(found == expected, "\(name)")
    }

    /// An unsaved change to a related object changes the answer.
    @Test func anySeesUnsavedChangesOfRelatedObjects() async throws {
        let stack = try await TestStack()
        try await Self.seed(stack)
        let names = try await stack.container.newBackgroundContext().perform { context in
            let oeuvre = try #require(try context.all("Book", sortedBy: nil, PredicateKey<String>("title") == "L'Œuvre").first)
            oeuvre.setValue(900, forKey: "pages")
            let dune = try #require(try context.all("Book", sortedBy: nil, PredicateKey<String>("title") == "Dune").first)
            dune.setValue(100, forKey: "pages")
            return try context.all("Author", sortedBy: "name", .any("books", where: PredicateKey<Int>("pages") > 400))
                .compactMap { $0.string("name") }
        }
        #expect(names == ["Émile Zola"])
    }
}
