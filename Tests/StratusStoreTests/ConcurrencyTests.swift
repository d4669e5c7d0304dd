import Foundation
import StratusStore
import StratusTesting
import Testing

@Suite struct ConcurrencyTests {
    /// Eight background contexts insert at once and save through the chain: nothing is lost, counts are exact.
    @Test func eightBackgroundContextsInsertConcurrently() async throws {
        let stack = try await TestStack()
        let container = stack.container
        let authorID = try await container.newBackgroundContext().perform { context in
            let author = context.insert(entity: "Author")
            author.setValue("Shared", forKey: "name")
            try context.save()
            return author.objectID
        }
        let workers = 8
        let booksPerWorker = 40
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    let context = container.newBackgroundContext()
                    for batch in 0..<4 {
                        try await context.perform { context in
                            let author = context.object(with: authorID)
                            for index in 0..<(booksPerWorker / 4) {
                                let book = context.insert(entity: "Book")
                                book.setValue("w\(worker)-b\(batch)-\(index)", forKey: "title")
                                book.setValue(author, forKey: "author")
                                let tag = context.insert(entity: "Tag")
                                tag.setValue("w\(worker)", forKey: "label")
                                book.addObject(tag, forKey: "tags")
                            }
                            try context.save()
                        }
                        try await context.saveChain(wait: batch.isMultiple(of: 2))
                    }
                }
            }
            // Meanwhile, the view context keeps fetching.
            group.addTask {
                for _ in 0..<20 {
                    _ = try await container.viewContext.perform { context in try context.count("Book") }
                }
            }
            try await group.waitForAll()
        }
        try await container.viewContext.saveChain()

        let total = workers * booksPerWorker
        let inView = try await container.viewContext.perform { context in
            [try context.count("Book"), context.object(with: authorID).objectIDs(forKey: "books").count]
        }
        #expect(inView == [total, total])
        let reopened = try await stack.reopened()
        let onDisk = try await reopened.newBackgroundContext().perform { context in
            [
                try context.count("Book"), try context.count("Tag"),
                context.object(with: authorID).objectIDs(forKey: "books").count,
                try context.count("Book", PredicateKey<String>("title").beginsWith("w7-")),
            ]
        }
        #expect(onDisk == [total, total, total, booksPerWorker])
    }

    /// isOnQueue is true only inside the context's own perform blocks.
    @Test func isOnQueueIsTrueOnlyOnTheContextsQueue() async throws {
        let stack = try await TestStack()
        let background = stack.container.newBackgroundContext()
        let view = stack.container.viewContext
        #expect(!background.isOnQueue)
        #expect(!view.isOnQueue)
        let insideBackground = await background.perform { context in [context.isOnQueue, view.isOnQueue] }
        #expect(insideBackground == [true, false])
        let insideView = await view.perform { context in [context.isOnQueue, background.isOnQueue] }
        #expect(insideView == [true, false])
        let nested = background.performAndWait { _ in view.performAndWait { _ in [view.isOnQueue, background.isOnQueue] } }
        #expect(nested == [true, false])
    }

    /// Touching an object off its context's queue stops the program with a message naming the context.
    @Test func touchingAnObjectOffItsQueueStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = try TemporaryDirectory()
            let container = PersistentContainer(
                name: "Misuse", model: try LibraryModel.make(), url: directory.url.appendingPathComponent("store.sqlite"))
            try await container.loadPersistentStores()
            let importer = ObjectContext(concurrencyType: .privateQueue, parent: container.viewContext, name: "importer")
            let tag = importer.performAndWait { context in context.insert(entity: "Tag") }
            _ = tag.value(forKey: "label")
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("value(forKey:) on Tag/t"))
        #expect(message.contains("off the queue of context \"importer\" (privateQueue)"))
    }

    /// Calling a context's methods off its queue stops the program too.
    @Test func usingAContextOffItsQueueStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = try TemporaryDirectory()
            let container = PersistentContainer(
                name: "Misuse", model: try LibraryModel.make(), url: directory.url.appendingPathComponent("store.sqlite"))
            try await container.loadPersistentStores()
            try container.viewContext.save()
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("save() off the queue of context \"Misuse.viewContext\" (mainQueue)"))
    }

    /// Relating objects of two contexts stops the program, naming both contexts.
    @Test func relatingObjectsAcrossContextsStops() async throws {
        let result = try await #require(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let directory = try TemporaryDirectory()
            let container = PersistentContainer(
                name: "Misuse", model: try LibraryModel.make(), url: directory.url.appendingPathComponent("store.sqlite"))
            try await container.loadPersistentStores()
            let first = ObjectContext(concurrencyType: .privateQueue, parent: container.viewContext, name: "first")
            let second = ObjectContext(concurrencyType: .privateQueue, parent: container.viewContext, name: "second")
            let author = first.performAndWait { context in context.insert(entity: "Author") }
            second.performAndWait { context in
                context.insert(entity: "Book").setValue(author, forKey: "author")
            }
        }
        let message = String(decoding: result.standardErrorContent, as: UTF8.self)
        #expect(message.contains("cannot relate Author/t"))
        #expect(message.contains("belongs to context \"first\""))
    }
}
