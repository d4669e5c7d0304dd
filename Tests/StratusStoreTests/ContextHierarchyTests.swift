import Foundation
import StratusStore
import StratusTesting
import Testing

@Suite struct ContextHierarchyTests {
    /// The view context runs on the main actor: performAndWait runs in place there.
    @MainActor @Test func viewContextRunsOnTheMainActor() async throws {
        let stack = try await TestStack()
        let view = stack.container.viewContext
        #expect(view.concurrencyType == .mainQueue)
        #expect(view.isOnQueue)
        #expect(!stack.container.rootContext.isOnQueue)
        let tag = view.performAndWait { context in context.insert(entity: "Tag") }
        tag.setValue("on main", forKey: "label")
        #expect(try view.performAndWait { context in try context.count("Tag") } == 1)
        try view.performAndWait { context in try context.save() }
        try await view.saveChain()
        #expect(try await stack.reopened().newBackgroundContext().perform { try $0.count("Tag") } == 1)
    }

    /// A background context made a child of the root bypasses the view context, which still sees its saves.
    @Test func backgroundContextOfTheRoot() async throws {
        let stack = try await TestStack()
        let direct = stack.container.newBackgroundContext(parent: .rootContext)
        #expect(direct.parent === stack.container.rootContext)
        #expect(stack.container.newBackgroundContext().parent === stack.container.viewContext)
        try await direct.perform { context in
            context.insert(entity: "Tag").setValue("direct", forKey: "label")
            try context.save()
        }
        let inView = try await stack.container.viewContext.perform { context in try context.count("Tag") }
        #expect(inView == 1)
        let inRoot = await stack.container.rootContext.perform { context in context.hasChanges }
        #expect(inRoot)
        #expect(try await stack.reopened().newBackgroundContext().perform { try $0.count("Tag") } == 0)
        try await stack.container.rootContext.saveChain()
        #expect(try await stack.reopened().newBackgroundContext().perform { try $0.count("Tag") } == 1)
    }

    /// A grandchild of the view context sees the unsaved values of both ancestors and saves up through them.
    @Test func nestedChildrenSeeAndSaveThroughAncestors() async throws {
        let stack = try await TestStack()
        let view = stack.container.viewContext
        let authorID = try await view.perform { context in
            let author = context.insert(entity: "Author")
            author.setValue("Unsaved in view", forKey: "name")
            try context.save()  // into the root, not to disk
            author.setValue("Renamed in view", forKey: "name")
            return author.objectID
        }
        let child = stack.container.newBackgroundContext()
        let grandchild = ObjectContext(concurrencyType: .privateQueue, parent: child, name: "grandchild")
        try await grandchild.perform { context in
            let author = context.object(with: authorID)
            #expect(author.string("name") == "Renamed in view")
            let book = context.insert(entity: "Book")
            book.setValue("From the grandchild", forKey: "title")
            book.setValue(author, forKey: "author")
            try context.save()
        }
        try await grandchild.saveChain()
        try await stack.reopened().newBackgroundContext().perform { context throws in
            let author = try context.existingObject(with: authorID)
            #expect(author.string("name") == "Renamed in view")
            #expect(author.objectIDs(forKey: "books").count == 1)
        }
    }

    /// Using a container before loadPersistentStores() throws storeNotLoaded.
    @Test func unloadedStoreThrows() async throws {
        let directory = try TemporaryDirectory()
        let container = PersistentContainer(
            name: "Unloaded", model: try LibraryModel.make(), url: directory.url.appendingPathComponent("store.sqlite"))
        let context = container.newBackgroundContext()
        let error = await #expect(throws: StoreError.self) { try await context.perform { try $0.count("Tag") } }
        #expect(error?.code == .storeNotLoaded)
        #expect(error?.message.contains("loadPersistentStores()") == true)
    }

    /// refresh drops loaded values, so the object picks up a change saved by a sibling.
    @Test func refreshPicksUpSiblingChanges() async throws {
        let stack = try await TestStack()
        let first = stack.container.newBackgroundContext()
        let second = stack.container.newBackgroundContext()
        let id = try await first.perform { context in
            let tag = context.insert(entity: "Tag")
            tag.setValue("old", forKey: "label")
            try context.save()
            return tag.objectID
        }
        #expect(await second.perform { context in context.object(with: id).string("label") } == "old")
        try await first.perform { context in
            context.object(with: id).setValue("new", forKey: "label")
            try context.save()
        }
        let labels = await second.perform { context in
            let tag = context.object(with: id)
            let stale = tag.string("label")
            context.refresh(tag, mergeChanges: false)
            return [stale, tag.string("label")]
        }
        #expect(labels == ["old", "new"])
    }
}
