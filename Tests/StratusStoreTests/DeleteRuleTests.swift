import StratusStore
import Testing

@Suite struct DeleteRuleTests {
    /// Deleting with the nullify rule removes the object from the related objects' inverse.
    @Test func nullifyClearsTheInverse() async throws {
        let stack = try await TestStack()
        let context = stack.container.newBackgroundContext()
        let (tagID, bookID) = try await context.perform { context in
            let tag = context.insert(entity: "Tag")
            tag.setValue("gone", forKey: "label")
            let book = context.insert(entity: "Book")
            book.setValue("Kept", forKey: "title")
            book.addObject(tag, forKey: "tags")
            try context.save()
            context.delete(tag)
            #expect(book.objectIDs(forKey: "tags").isEmpty)
            #expect(book.isUpdated)
            try context.save()
            return (tag.objectID, book.objectID)
        }
        try await context.saveChain()
        try await stack.reopened().newBackgroundContext().perform { context throws in
            #expect(try context.existingObject(with: bookID).objectIDs(forKey: "tags").isEmpty)
            #expect(throws: StoreError.self) { try context.existingObject(with: tagID) }
        }
    }

    /// Deleting with the cascade rule deletes the related objects, and their own cascades.
    @Test func cascadeDeletesRelatedObjects() async throws {
        let stack = try await TestStack()
        let context = stack.container.newBackgroundContext()
        try await context.perform { context in
            let author = context.insert(entity: "Author")
            author.setValue("Gone", forKey: "name")
            for title in ["One", "Two"] {
                let book = context.insert(entity: "Book")
                book.setValue(title, forKey: "title")
                book.setValue(author, forKey: "author")
                let cover = context.insert(entity: "Cover")
                cover.setValue(book, forKey: "book")
            }
            try context.save()
            context.delete(author)
            #expect(try context.count("Book") == 0)
            #expect(try context.count("Cover") == 0)
            try context.save()
        }
        try await context.saveChain()
        let counts = try await stack.reopened().newBackgroundContext().perform { context in
            [try context.count("Author"), try context.count("Book"), try context.count("Cover")]
        }
        #expect(counts == [0, 0, 0])
    }

    /// Deleting with the deny rule while related objects remain fails the save, naming the relationship.
    @Test func denyFailsTheSaveWhileRelatedObjectsRemain() async throws {
        let stack = try await TestStack()
        let context = stack.container.newBackgroundContext()
        let error = try await context.perform { context -> StoreError? in
            let publisher = context.insert(entity: "Publisher")
            publisher.setValue("Ace", forKey: "name")
            let author = context.insert(entity: "Author")
            author.setValue("Frank", forKey: "name")
            author.setValue(publisher, forKey: "publisher")
            try context.save()
            context.delete(publisher)
            let error = #expect(throws: StoreError.self) { try context.save() }
            context.rollback()
            // Once the author is gone, the publisher may go.
            context.delete(author)
            context.delete(publisher)
            try context.save()
            return error
        }
        #expect(error?.code == .deleteDenied)
        #expect(error?.key == "authors")
        #expect(error?.message.contains("Publisher.authors has the deny rule") == true)
    }

    /// The no-action rule leaves related objects pointing at the deleted object.
    @Test func noActionLeavesReferencesAlone() async throws {
        let stack = try await TestStack()
        try await stack.container.newBackgroundContext().perform { context in
            let book = context.insert(entity: "Book")
            book.setValue("Bare", forKey: "title")
            let cover = context.insert(entity: "Cover")
            cover.setValue(book, forKey: "book")
            try context.save()
            // Cover.book is noAction: deleting the cover leaves book.cover pointing at it.
            context.delete(cover)
            #expect(book.objectIDs(forKey: "cover") == [cover.objectID])
        }
    }

    /// An object inserted and deleted before a save is simply discarded.
    @Test func insertedThenDeletedObjectIsDiscarded() async throws {
        let stack = try await TestStack()
        let context = stack.container.newBackgroundContext()
        try await context.perform { context in
            let author = context.insert(entity: "Author")
            author.setValue("Draft", forKey: "name")
            let book = context.insert(entity: "Book")
            book.setValue("Draft", forKey: "title")
            book.setValue(author, forKey: "author")
            context.delete(book)
            #expect(author.objectIDs(forKey: "books").isEmpty)
            #expect(!context.insertedObjects.contains(book))
            try context.save()
            #expect(book.context == nil)
        }
        try await context.saveChain()
        #expect(try await stack.reopened().newBackgroundContext().perform { try $0.count("Book") } == 0)
        #expect(try await stack.reopened().newBackgroundContext().perform { try $0.count("Author") } == 1)
    }
}
