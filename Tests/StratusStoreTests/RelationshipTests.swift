import StratusStore
import Testing

@Suite struct RelationshipTests {
    /// Setting a to-one relationship adds the object to the inverse to-many, and moving it removes it from the old one.
    @Test func toOneAndInverseToManyStayInStep() async throws {
        let stack = try await TestStack()
        await stack.container.newBackgroundContext().perform { context in
            let first = context.insert(entity: "Author")
            let second = context.insert(entity: "Author")
            let book = context.insert(entity: "Book")
            book.setValue(first, forKey: "author")
            #expect(first.value(forKey: "books", as: Set<ManagedObject>.self) == [book])
            book.setValue(second, forKey: "author")
            #expect(first.value(forKey: "books", as: Set<ManagedObject>.self) == [])
            #expect(second.value(forKey: "books", as: Set<ManagedObject>.self) == [book])
            second.removeObject(book, forKey: "books")
            #expect(book.value(forKey: "author") == nil)
            first.addObject(book, forKey: "books")
            #expect(book.value(forKey: "author", as: ManagedObject.self) === first)
        }
    }

    /// Many-to-many relationships update both sides and are stored in a join table.
    @Test func manyToManySurvivesReopen() async throws {
        let stack = try await TestStack()
        let context = stack.container.newBackgroundContext()
        let bookID = try await context.perform { context in
            let book = context.insert(entity: "Book")
            book.setValue("Dune", forKey: "title")
            let tags = ["sf", "classic", "desert"].map { label in
                let tag = context.insert(entity: "Tag")
                tag.setValue(label, forKey: "label")
                return tag
            }
            book.setValue(Set(tags), forKey: "tags")
            #expect(tags.allSatisfy { $0.value(forKey: "books", as: Set<ManagedObject>.self) == [book] })
            tags[2].setValue([ManagedObject](), forKey: "books")
            #expect(book.objectIDs(forKey: "tags").count == 2)
            try context.save()
            return book.objectID
        }
        try await context.saveChain()
        let labels = try await stack.reopened().newBackgroundContext().perform { context in
            let book = try context.existingObject(with: bookID)
            return (book.value(forKey: "tags", as: Set<ManagedObject>.self) ?? []).compactMap { $0.string("label") }.sorted()
        }
        #expect(labels == ["classic", "sf"])
    }

    /// One-to-one: pointing a second object at a target releases the first one.
    @Test func oneToOneStealsTheTarget() async throws {
        let stack = try await TestStack()
        await stack.container.newBackgroundContext().perform { context in
            let cover = context.insert(entity: "Cover")
            let first = context.insert(entity: "Book")
            let second = context.insert(entity: "Book")
            first.setValue(cover, forKey: "cover")
            second.setValue(cover, forKey: "cover")
            #expect(first.value(forKey: "cover") == nil)
            #expect(cover.value(forKey: "book", as: ManagedObject.self) === second)
        }
    }

    /// Related objects are faults until used, and relationships load lazily from the store.
    @Test func relatedObjectsFaultInLazily() async throws {
        let stack = try await TestStack()
        let context = stack.container.newBackgroundContext()
        let authorID = try await context.perform { context in
            let author = context.insert(entity: "Author")
            author.setValue("Frank", forKey: "name")
            let book = context.insert(entity: "Book")
            book.setValue("Dune", forKey: "title")
            book.setValue(author, forKey: "author")
            try context.save()
            return author.objectID
        }
        try await context.saveChain()
        try await stack.reopened().newBackgroundContext().perform { context in
            let author = context.object(with: authorID)
            #expect(author.isFault)
            #expect(author.string("name") == "Frank")
            #expect(!author.isFault)
            let books = author.value(forKey: "books", as: Set<ManagedObject>.self) ?? []
            let book = try #require(books.first)
            #expect(book.isFault)
            #expect(book.string("title") == "Dune")
            #expect(book.value(forKey: "author", as: ManagedObject.self) === author)
        }
    }

    /// One object per ID per context: lookups and fetches return the same instance.
    @Test func uniquingGivesOneObjectPerID() async throws {
        let stack = try await TestStack()
        let context = stack.container.newBackgroundContext()
        try await context.perform { context in
            let tag = context.insert(entity: "Tag")
            tag.setValue("only", forKey: "label")
            try context.save()
            #expect(context.object(with: tag.objectID) === tag)
            #expect(try context.all("Tag").first === tag)
            #expect(try context.existingObject(with: tag.objectID) === tag)
        }
        let other = stack.container.newBackgroundContext()
        try await other.perform { context in
            let fetched = try context.all("Tag")
            #expect(fetched.count == 1)
            #expect(context.object(with: fetched[0].objectID) === fetched[0])
        }
    }

    /// An ID of a deleted object is reported as not found.
    @Test func existingObjectThrowsForMissingObject() async throws {
        let stack = try await TestStack()
        let context = stack.container.newBackgroundContext()
        let error = await context.perform { context in
            #expect(throws: StoreError.self) {
                try context.existingObject(with: ObjectID(stringRepresentation: "Tag/p999")!)
            }
        }
        #expect(error?.code == .objectNotFound)
    }
}
