import Foundation
import StratusStore
import StratusTesting
import Testing

/// Persistent history: transactions per root save and author, tokens, pruning.
@Suite struct HistoryTests {
    /// Each root save records a transaction with its author, its changes and their keys.
    @Test func rootSavesRecordTransactionsWithAuthorsAndKeys() async throws {
        let stack = try await TestStack()
        let app = stack.container.newBackgroundContext()
        app.transactionAuthor = "app"
        let id = try await app.perform { context in
            let book = context.insert(entity: "Book")
            book.setValue("Dune", forKey: "title")
            try context.save()
            return book.objectID
        }
        var rootSaves = stack.container.rootContext.notifications.makeAsyncIterator()
        try await app.saveChain()
        let sync = stack.container.newBackgroundContext()
        sync.transactionAuthor = "sync"
        try await sync.perform { context in
            context.object(with: id).setValue(412, forKey: "pages")
            try context.save()
        }
        try await sync.saveChain()

        let history = try await stack.container.history(after: nil)
        #expect(history.map(\.author) == ["app", "sync"])
        #expect(history[0].changes == [HistoryChange(objectID: id, kind: .inserted, changedKeys: [])])
        #expect(history[1].changes == [HistoryChange(objectID: id, kind: .updated, changedKeys: ["pages"])])
        #expect(history[0].token < history[1].token)
        #expect(try await stack.container.lastHistoryToken() == history[1].token)
        var firstRootSave = await rootSaves.next()
        while firstRootSave?.kind != .didSave { firstRootSave = await rootSaves.next() }
        #expect(firstRootSave?.historyToken == history[0].token)

        let later = try await stack.container.history(after: history[0].token)
        #expect(later.map(\.token) == [history[1].token])
    }

    /// Changes of several authors that reach the store in one root save are split into one transaction per author.
    @Test func oneRootSaveWithTwoAuthorsRecordsTwoTransactions() async throws {
        let stack = try await TestStack()
        let id = try await stack.container.newBackgroundContext().perform { context in
            let book = context.insert(entity: "Book")
            book.setValue("Dune", forKey: "title")
            try context.save()
            return book.objectID
        }
        try await stack.container.viewContext.saveChain()
        let start = try await stack.container.lastHistoryToken()
        for (author, key, value) in [("app", "title", "Dune Messiah" as any Sendable), ("sync", "pages", 256 as any Sendable)] {
            let context = stack.container.newBackgroundContext()
            context.transactionAuthor = author
            try await context.perform { context in
                context.object(with: id).setValue(value, forKey: key)
                try context.save()
            }
        }
        try await stack.container.viewContext.saveChain()
        let history = try await stack.container.history(after: start)
        #expect(history.map(\.author) == ["app", "sync"])
        #expect(history.map { $0.changes.map(\.changedKeys) } == [[["title"]], [["pages"]]])
        #expect(history.allSatisfy { $0.changes.map(\.objectID) == [id] && $0.changes.first?.kind == .updated })
    }

    /// Another author's edit to an object a child inserted into an ancestor that has not saved it yet
    /// is that author's update in the history, not part of the insertion (sync skips its own
    /// transactions: the user's edit must not ride in one). Both through the root directly and through
    /// the view context, whose save hands the insertion on with the later edit's author.
    @Test(arguments: [PersistentContainer.BackgroundParent.rootContext, .viewContext])
    func anEditToAnotherAuthorsUnsavedInsertionIsRecordedAsItsOwnUpdate(_ insertedInto: PersistentContainer.BackgroundParent) async throws {
        let stack = try await TestStack()
        let id = try await Self.bookInsertedBySync(into: insertedInto, of: stack)
        let app = stack.container.newBackgroundContext()
        app.transactionAuthor = "app"
        try await app.perform { context in
            context.object(with: id).setValue(412, forKey: "pages")
            try context.save()
        }
        try await app.saveChain()

        let history = try await stack.container.history(after: nil)
        #expect(history.map(\.author) == ["app", "sync"])
        #expect(history.first { $0.author == "sync" }?.changes == [HistoryChange(objectID: id, kind: .inserted, changedKeys: [])])
        #expect(history.first { $0.author == "app" }?.changes == [HistoryChange(objectID: id, kind: .updated, changedKeys: ["pages"])])
        let stored = await stack.container.newBackgroundContext().perform { context in
            context.object(with: id).value(forKey: "pages") as? Int32
        }
        #expect(stored == 412)
    }

    /// An edit the ancestor itself makes to a child's unsaved insertion carries the ancestor's author.
    @Test func anAncestorsOwnEditToAChildsInsertionCarriesItsAuthor() async throws {
        let stack = try await TestStack()
        let id = try await Self.bookInsertedBySync(into: .viewContext, of: stack)
        let view = stack.container.viewContext
        view.transactionAuthor = "app"
        await view.perform { context in
            context.object(with: id).setValue("Dune Messiah", forKey: "title")
        }
        try await view.saveChain()

        let history = try await stack.container.history(after: nil)
        #expect(history.first { $0.author == "app" }?.changes == [HistoryChange(objectID: id, kind: .updated, changedKeys: ["title"])])
        #expect(history.first { $0.author == "sync" }?.changes == [HistoryChange(objectID: id, kind: .inserted, changedKeys: [])])
    }

    /// A book a context of author "sync" inserted and saved into `parent` only: not on disk yet.
    private static func bookInsertedBySync(into parent: PersistentContainer.BackgroundParent, of stack: TestStack) async throws -> ObjectID {
        let sync = stack.container.newBackgroundContext(parent: parent)
        sync.transactionAuthor = "sync"
        return try await sync.perform { context in
            let book = context.insert(entity: "Book")
            book.setValue("Dune", forKey: "title")
            try context.save()
            return book.objectID
        }
    }

    /// Deletions are recorded, and pruning through a token drops that transaction and the earlier ones;
    /// asking for history after a pruned token fails with historyExpired.
    @Test func pruningThroughATokenExpiresOlderTokens() async throws {
        let stack = try await TestStack()
        var tokens: [HistoryToken] = []
        var ids: [ObjectID] = []
        for label in ["a", "b", "c"] {
            let background = stack.container.newBackgroundContext()
            ids.append(
                try await background.perform { context in
                    let tag = context.insert(entity: "Tag")
                    tag.setValue(label, forKey: "label")
                    try context.save()
                    return tag.objectID
                })
            try await background.saveChain()
            tokens += [try #require(try await stack.container.lastHistoryToken())]
        }
        let deleter = stack.container.newBackgroundContext()
        let deletedID = ids[0]
        try await deleter.perform { context in
            context.delete(context.object(with: deletedID))
            try context.save()
        }
        try await deleter.saveChain()
        let last = try await stack.container.history(after: tokens[2])
        #expect(last.flatMap(\.changes) == [HistoryChange(objectID: ids[0], kind: .deleted, changedKeys: [])])

        try await stack.container.pruneHistory(through: tokens[1])
        #expect(try await stack.container.history(after: nil).map(\.token) == [tokens[2]] + last.map(\.token))
        #expect(try await stack.container.history(after: tokens[1]).count == 2)
        let error = await #expect(throws: StoreError.self) { _ = try await stack.container.history(after: tokens[0]) }
        #expect(error?.code == .historyExpired)
        #expect(try await stack.container.lastHistoryToken() == last.last?.token)
    }

    /// Pruning before a date uses the injected clock's timestamps.
    @Test func pruningBeforeADateKeepsNewerTransactions() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-history")
        let clock = ManualClock(start: 1_000_000)
        let container = PersistentContainer(
            name: "Clocked", model: try LibraryModel.make(), url: directory.url.appendingPathComponent("store.sqlite"),
            now: clock.dates())
        try await container.loadPersistentStores()
        for (label, time) in [("old", 1_000.0), ("new", 5_000.0)] {
            clock.set(Int64(time * 1000))
            let background = container.newBackgroundContext()
            try await background.perform { context in
                context.insert(entity: "Tag").setValue(label, forKey: "label")
                try context.save()
            }
            try await background.saveChain()
        }
        try await container.pruneHistory(before: Date(timeIntervalSince1970: 3_000))
        let kept = try await container.history(after: nil)
        #expect(kept.map(\.timestamp) == [Date(timeIntervalSince1970: 5_000)])
    }

    /// Tokens survive a round trip through JSON, and history survives reopening the store.
    @Test func tokensAreCodableAndHistoryIsDurable() async throws {
        let stack = try await TestStack()
        let background = stack.container.newBackgroundContext()
        try await background.perform { context in
            context.insert(entity: "Tag").setValue("x", forKey: "label")
            try context.save()
        }
        try await background.saveChain()
        let token = try #require(try await stack.container.lastHistoryToken())
        let decoded = try JSONDecoder().decode(HistoryToken.self, from: JSONEncoder().encode(token))
        #expect(decoded == token)
        try stack.container.close()
        let reopened = try await stack.reopened()
        #expect(try await reopened.lastHistoryToken() == token)
        #expect(try await reopened.history(after: nil).count == 1)
    }

    /// A container can be opened without history: root saves record nothing.
    @Test func historyCanBeTurnedOff() async throws {
        let directory = try TemporaryDirectory(prefix: "stratus-history")
        let container = PersistentContainer(
            name: "NoHistory", model: try LibraryModel.make(), url: directory.url.appendingPathComponent("store.sqlite"),
            recordsHistory: false)
        try await container.loadPersistentStores()
        let background = container.newBackgroundContext()
        try await background.perform { context in
            context.insert(entity: "Tag").setValue("x", forKey: "label")
            try context.save()
        }
        try await background.saveChain()
        #expect(try await container.history(after: nil).isEmpty)
    }
}
