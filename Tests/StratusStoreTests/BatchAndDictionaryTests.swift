import Foundation
import StratusStore
import Testing

/// Fetch batch size and dictionary results.
@Suite struct BatchAndDictionaryTests {
    /// With a batch size, the first batch loads with the fetch; reading a later object loads its batch only.
    @Test func batchSizeLoadsOneBatchAtATime() async throws {
        let stack = try await TestStack()
        let background = stack.container.newBackgroundContext()
        try await background.perform { context in
            for index in 0..<10 {
                context.insert(entity: "Tag").setValue(String(format: "tag %02d", index), forKey: "label")
            }
            try context.save()
        }
        try await background.saveChain()
        let states = try await stack.container.newBackgroundContext().perform { context in
            var request = FetchRequest(entityName: "Tag", sortDescriptors: [.ascending("label")])
            request.fetchBatchSize = 3
            let tags = try context.fetch(request)
            let before = tags.map(\.isFault)
            let sixth = tags[5].string("label")
            let after = tags.map(\.isFault)
            return (before, sixth, after, tags.map { $0.string("label") ?? "nil" })
        }
        #expect(states.0 == [false, false, false, true, true, true, true, true, true, true])
        #expect(states.1 == "tag 05")
        #expect(states.2 == [false, false, false, false, false, false, true, true, true, true])
        #expect(states.3 == (0..<10).map { String(format: "tag %02d", $0) })
    }

    /// Dictionary results carry the requested properties, from SQL or, with unsaved changes, from the objects.
    @Test func dictionariesCarryTheRequestedProperties() async throws {
        let stack = try await TestStack()
        try await FetchRequestTests.seed(stack)
        let request = FetchRequest(
            entityName: "Book", predicate: PredicateKey<String>("title").beginsWith("Dune"), sortDescriptors: [.ascending("title")])
        let (stored, unsaved) = try await stack.container.newBackgroundContext().perform { context in
            let stored = try context.fetchDictionaries(request, properties: ["title", "pages", "author"])
            let registered = context.registeredObjects.count
            let messiah = try #require(try context.fetch(request).last)
            messiah.setValue(257, forKey: "pages")
            let unsaved = try context.fetchDictionaries(request, properties: ["pages"])
            #expect(registered == 0)
            return (stored, unsaved)
        }
        #expect(stored.map { $0["title"] } == [.attribute(.string("Dune")), .attribute(.string("Dune Messiah"))])
        #expect(stored.map { $0["pages"] } == [.attribute(.integer32(412)), .attribute(.integer32(256))])
        if case .toOne(let author?)? = stored.first?["author"] {
            #expect(author.entityName == "Author")
        } else {
            Issue.record("no author in \(stored)")
        }
        #expect(unsaved.map { $0["pages"] } == [.attribute(.integer32(412)), .attribute(.integer32(257))])
    }
}
