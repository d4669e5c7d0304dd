import Foundation
import StratusStore
import StratusTesting
import Testing

/// Optimistic locking, merge policies and automatic merges.
@Suite struct MergeTests {
    /// A saved book with title "Original" and 100 pages, and its permanent ID.
    private static func savedBook(_ stack: TestStack) async throws -> ObjectID {
        let id = try await stack.container.newBackgroundContext().perform { context in
            let book = context.insert(entity: "Book")
            book.setValue("Original", forKey: "title")
            book.setValue(100, forKey: "pages")
            try context.save()
            return book.objectID
        }
        try await stack.container.viewContext.saveChain()
        return id
    }

    /// Two children of the view context that read the book, the first of which then renames it and saves.
    private static func siblingsAfterFirstSave(
        _ stack: TestStack, _ id: ObjectID, policy: MergePolicy
    )
        async throws -> ObjectContext
    {
        let first = stack.container.newBackgroundContext()
        let second = stack.container.newBackgroundContext()
        second.mergePolicy = policy
        for context in [first, second] {
            _ = await context.perform { context in context.object(with: id).string("title") }
        }
        try await first.perform { context in
            context.object(with: id).setValue("First", forKey: "title")
            try context.save()
        }
        return second
    }

    private static func viewValues(_ stack: TestStack, _ id: ObjectID) async -> [String] {
        await stack.container.viewContext.perform { context in
            let book = context.object(with: id)
            return [book.string("title") ?? "nil", "\(book.value(forKey: "pages", as: Int32.self) ?? -1)"]
        }
    }

    /// Two contexts save the same object: with the error policy, the second save fails, names the object and changes nothing.
    @Test func secondSaveOfTheSameObjectConflicts() async throws {
        let stack = try await TestStack()
        let id = try await Self.savedBook(stack)
        let second = try await Self.siblingsAfterFirstSave(stack, id, policy: .error)
        let error = await #expect(throws: StoreError.self) {
            try await second.perform { context in
                context.object(with: id).setValue(7, forKey: "pages")
                try context.save()
            }
        }
        #expect(error?.code == .mergeConflict)
        #expect(error?.conflicts.map(\.objectID) == [id])
        #expect(error?.conflicts.first?.wasDeleted == false)
        #expect(error?.message.contains(id.stringRepresentation) == true)
        #expect(await second.perform { context in context.hasChanges })
        #expect(await Self.viewValues(stack, id) == ["First", "100"])
    }

    /// Object trump: the saving context's changed properties win; the others keep the parent's values.
    @Test func objectTrumpOverwritesChangedProperties() async throws {
        let stack = try await TestStack()
        let id = try await Self.savedBook(stack)
        let second = try await Self.siblingsAfterFirstSave(stack, id, policy: .objectTrump)
        let afterSave = try await second.perform { context in
            let book = context.object(with: id)
            book.setValue(7, forKey: "pages")
            try context.save()
            return book.string("title")
        }
        #expect(afterSave == "First")  // refreshed after the resolved conflict
        #expect(await Self.viewValues(stack, id) == ["First", "7"])
    }

    /// Store trump: properties the parent changed meanwhile keep the parent's value; the saving context's other changes apply.
    @Test func storeTrumpKeepsPropertiesChangedMeanwhile() async throws {
        let stack = try await TestStack()
        let id = try await Self.savedBook(stack)
        let second = try await Self.siblingsAfterFirstSave(stack, id, policy: .storeTrump)
        try await second.perform { context in
            let book = context.object(with: id)
            book.setValue("Second", forKey: "title")
            book.setValue(7, forKey: "pages")
            try context.save()
        }
        #expect(await Self.viewValues(stack, id) == ["First", "7"])
    }

    /// Rollback: the saving context's changes to conflicting objects are dropped; its other changes are saved.
    @Test func rollbackDropsConflictingChangesOnly() async throws {
        let stack = try await TestStack()
        let id = try await Self.savedBook(stack)
        let second = try await Self.siblingsAfterFirstSave(stack, id, policy: .rollback)
        let title = try await second.perform { context in
            let book = context.object(with: id)
            book.setValue("Second", forKey: "title")
            context.insert(entity: "Tag").setValue("kept", forKey: "label")
            try context.save()
            return book.string("title")
        }
        #expect(title == "First")
        #expect(await Self.viewValues(stack, id) == ["First", "100"])
        #expect(try await stack.container.viewContext.perform { try $0.count("Tag") } == 1)
    }

    /// A save that deletes an object changed meanwhile conflicts; updating an object deleted meanwhile conflicts too.
    @Test func deletionsTakePartInOptimisticLocking() async throws {
        let stack = try await TestStack()
        let id = try await Self.savedBook(stack)
        let second = try await Self.siblingsAfterFirstSave(stack, id, policy: .error)
        let error = await #expect(throws: StoreError.self) {
            try await second.perform { context in
                context.delete(context.object(with: id))
                try context.save()
            }
        }
        #expect(error?.conflicts.map(\.objectID) == [id])

        let updater = stack.container.newBackgroundContext()
        _ = await updater.perform { context in context.object(with: id).string("title") }
        try await stack.container.newBackgroundContext().perform { context in
            context.delete(context.object(with: id))
            try context.save()
        }
        let deleted = await #expect(throws: StoreError.self) {
            try await updater.perform { context in
                context.object(with: id).setValue("Too late", forKey: "title")
                try context.save()
            }
        }
        #expect(deleted?.conflicts.first?.wasDeleted == true)
    }

    /// Adding to one to-many relationship from several contexts merges: deltas never conflict.
    @Test func toManyAdditionsFromTwoContextsMerge() async throws {
        let stack = try await TestStack()
        let authorID = try await stack.container.newBackgroundContext().perform { context in
            let author = context.insert(entity: "Author")
            author.setValue("Shared", forKey: "name")
            try context.save()
            return author.objectID
        }
        let contexts = [stack.container.newBackgroundContext(), stack.container.newBackgroundContext()]
        for context in contexts {
            _ = await context.perform { context in context.object(with: authorID).objectIDs(forKey: "books").count }
        }
        for (index, context) in contexts.enumerated() {
            try await context.perform { context in
                let book = context.insert(entity: "Book")
                book.setValue("Book \(index)", forKey: "title")
                book.setValue(context.object(with: authorID), forKey: "author")
                try context.save()
            }
        }
        try await stack.container.viewContext.saveChain()
        let count = try await stack.reopened().newBackgroundContext().perform { context in
            context.object(with: authorID).objectIDs(forKey: "books").count
        }
        #expect(count == 2)
    }

    /// The root context's save checks each row's version in the store: a second container that wrote meanwhile is a conflict.
    @Test func rootSaveDetectsChangesWrittenToTheStoreMeanwhile() async throws {
        let stack = try await TestStack()
        let id = try await Self.savedBook(stack)
        let root = stack.container.rootContext
        _ = await root.perform { context in context.object(with: id).string("title") }
        let other = try await stack.reopened()
        try await other.newBackgroundContext(parent: .rootContext).perform { context in
            context.object(with: id).setValue("Elsewhere", forKey: "title")
            try context.save()
        }
        try await other.rootContext.saveChain()
        let error = await #expect(throws: StoreError.self) {
            try await root.perform { context in
                context.object(with: id).setValue(5, forKey: "pages")
                try context.save()
            }
        }
        #expect(error?.conflicts.first?.isInStore == true)
        root.mergePolicy = .objectTrump
        try await root.perform { context in try context.save() }
        let stored = await stack.container.newBackgroundContext(parent: .rootContext).perform { context in
            let book = context.object(with: id)
            return [book.string("title") ?? "nil", "\(book.value(forKey: "pages", as: Int32.self) ?? -1)"]
        }
        #expect(stored == ["Elsewhere", "5"])
    }

    /// With automatic merges, a sibling's save into the parent refreshes the context's objects, and its next save does not conflict.
    @Test func automaticMergeRefreshesObjectsChangedBySiblings() async throws {
        let stack = try await TestStack()
        let id = try await Self.savedBook(stack)
        let watcher = stack.container.newBackgroundContext()
        watcher.automaticallyMergesChangesFromParent = true
        _ = await watcher.perform { context in context.object(with: id).string("title") }
        var changes = watcher.notifications.makeAsyncIterator()
        try await stack.container.newBackgroundContext().perform { context in
            context.object(with: id).setValue("Merged", forKey: "title")
            try context.save()
        }
        let merged = await changes.next()
        #expect(merged?.kind == .objectsDidChange)
        #expect(merged?.updatedObjectIDs == [id])
        let title = await watcher.perform { context in context.object(with: id).string("title") }
        #expect(title == "Merged")
        try await watcher.perform { context in
            context.object(with: id).setValue(9, forKey: "pages")
            try context.save()
        }
        #expect(await Self.viewValues(stack, id) == ["Merged", "9"])
    }

    /// The view context merges saves that reach the root from a background context of the root.
    @Test func viewContextMergesSavesIntoTheRoot() async throws {
        let stack = try await TestStack()
        let id = try await Self.savedBook(stack)
        let view = stack.container.viewContext
        view.automaticallyMergesChangesFromParent = true
        _ = await view.perform { context in context.object(with: id).string("title") }
        var changes = view.notifications.makeAsyncIterator()
        try await stack.container.newBackgroundContext(parent: .rootContext).perform { context in
            context.object(with: id).setValue("From root child", forKey: "title")
            try context.save()
        }
        _ = await changes.next()
        #expect(await Self.viewValues(stack, id) == ["From root child", "100"])
    }
}
