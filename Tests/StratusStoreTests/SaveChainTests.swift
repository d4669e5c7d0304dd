import Foundation
import StratusStore
import Testing

@Suite struct SaveChainTests {
    /// A background save reaches the view context, but the disk only when the root saves.
    @Test func childSavePushesToParentNotToDisk() async throws {
        let stack = try await TestStack()
        let background = stack.container.newBackgroundContext()
        let id = try await background.perform { context in
            let author = context.insert(entity: "Author")
            author.setValue("Ada", forKey: "name")
            try context.save()
            return author.objectID
        }
        let seenByView = try await stack.container.viewContext.perform { context in
            try context.existingObject(with: id).string("name")
        }
        #expect(seenByView == "Ada")
        let onDisk = try await stack.reopened().newBackgroundContext().perform { context in try context.count("Author") }
        #expect(onDisk == 0)

        try await stack.container.viewContext.saveChain()
        let afterRootSave = try await stack.reopened().newBackgroundContext().perform { context in try context.count("Author") }
        #expect(afterRootSave == 1)
    }

    /// Background → view → root → disk, then a fresh container reads everything back, relationships included.
    @Test func fullChainReachesDiskAndReloads() async throws {
        let stack = try await TestStack()
        let background = stack.container.newBackgroundContext()
        let ids = try await background.perform { context in
            let author = context.insert(entity: "Author")
            author.setValue("Ursula", forKey: "name")
            for title in ["Earthsea", "The Dispossessed"] {
                let book = context.insert(entity: "Book")
                book.setValue(title, forKey: "title")
                book.setValue(author, forKey: "author")
            }
            try context.save()
            return author.objectID
        }
        try await background.saveChain(wait: true)

        let reopened = try await stack.reopened()
        let titles = try await reopened.viewContext.perform { context in
            let author = try context.existingObject(with: ids)
            let books = author.value(forKey: "books", as: Set<ManagedObject>.self) ?? []
            return books.compactMap { $0.string("title") }.sorted()
        }
        #expect(titles == ["Earthsea", "The Dispossessed"])
    }

    /// saveChain(wait: false) returns after the first hop; the rest reaches the disk in order.
    @Test func saveChainWithoutWaitingEventuallyReachesDisk() async throws {
        let stack = try await TestStack()
        let background = stack.container.newBackgroundContext()
        await background.perform { context in
            context.insert(entity: "Tag").setValue("later", forKey: "label")
        }
        try await background.saveChain(wait: false)
        // The ancestors' saves are queued on their queues: a block queued after them runs after them.
        await stack.container.viewContext.perform { _ in }
        await stack.container.rootContext.perform { _ in }
        let count = try await stack.reopened().newBackgroundContext().perform { context in try context.count("Tag") }
        #expect(count == 1)
    }

    /// Temporary IDs become permanent at save, and the permanent ID finds the object in another context.
    @Test func temporaryIDsBecomePermanentAtSave() async throws {
        let stack = try await TestStack()
        let background = stack.container.newBackgroundContext()
        let (before, after) = try await background.perform { context in
            let tag = context.insert(entity: "Tag")
            tag.setValue("x", forKey: "label")
            let before = tag.objectID
            try context.save()
            #expect(context.object(with: tag.objectID) === tag)
            return (before, tag.objectID)
        }
        #expect(before.isTemporaryID)
        #expect(!after.isTemporaryID)
        #expect(after.primaryKey != nil)
        #expect(ObjectID(stringRepresentation: after.stringRepresentation) == after)
        let label = await stack.container.viewContext.perform { context in context.object(with: after).string("label") }
        #expect(label == "x")
    }

    /// Rollback discards insertions and reverts changes and deletions.
    @Test func rollbackRevertsEverything() async throws {
        let stack = try await TestStack()
        let context = stack.container.newBackgroundContext()
        try await context.perform { context in
            let kept = context.insert(entity: "Tag")
            kept.setValue("kept", forKey: "label")
            try context.save()
            kept.setValue("changed", forKey: "label")
            let added = context.insert(entity: "Tag")
            added.setValue("added", forKey: "label")
            context.rollback()
            #expect(kept.string("label") == "kept")
            #expect(added.context == nil)
            #expect(try context.count("Tag") == 1)
            context.delete(kept)
            #expect(try context.count("Tag") == 0)
            context.rollback()
            #expect(!kept.isDeleted)
            #expect(try context.count("Tag") == 1)
            #expect(!context.hasChanges)
        }
    }

    /// Reset empties the context; objects come back fresh from the parent.
    @Test func resetForgetsObjects() async throws {
        let stack = try await TestStack()
        let context = stack.container.newBackgroundContext()
        try await context.perform { context in
            let tag = context.insert(entity: "Tag")
            tag.setValue("one", forKey: "label")
            try context.save()
            let id = tag.objectID
            context.reset()
            #expect(tag.context == nil)
            #expect(context.registeredObjects.isEmpty)
            let again = context.object(with: id)
            #expect(again !== tag)
            #expect(again.string("label") == "one")
        }
    }

    /// A changed model under the same version identifier is refused too.
    @Test func changedModelWithSameVersionIsRefused() async throws {
        let stack = try await TestStack()
        try stack.container.close()
        var entities = LibraryModel.entities()
        entities.append(EntityDescription("Extra", attributes: [AttributeDescription("x", .string)]))
        let changed = try ObjectModel(version: "1", entities: entities)
        let error = await #expect(throws: StoreError.self) { _ = try await stack.reopened(model: changed) }
        #expect(error?.code == .modelChangedWithoutNewVersion)
    }

    /// Breaking a uniqueness constraint fails the root save and names the object; nothing is written.
    @Test func uniquenessViolationFailsTheRootSave() async throws {
        let stack = try await TestStack()
        let root = stack.container.newBackgroundContext(parent: .rootContext)
        try await root.perform { context in
            for title in ["A", "B"] {
                let book = context.insert(entity: "Book")
                book.setValue(title, forKey: "title")
                book.setValue("978-0", forKey: "isbn")
            }
            try context.save()
        }
        let error = await #expect(throws: StoreError.self) { try await stack.container.rootContext.perform { try $0.save() } }
        #expect(error?.code == .uniquenessViolation)
        #expect(error?.entityName == "Book")
        let count = try await stack.reopened().newBackgroundContext().perform { try $0.count("Book") }
        #expect(count == 0)
    }
}
