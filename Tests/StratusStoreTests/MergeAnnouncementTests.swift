import Foundation
import StratusStore
import StratusTesting
import Synchronization
import Testing

/// What the observers of one context saw, from whichever thread posts.
private final class Seen: Sendable {
    let notifications = Mutex<[ObjectContextNotification]>([])
    let postedDeletions = Mutex<[Set<ObjectID>]>([])
}

/// The objects-did-change notifications a context posts (its stream and `NotificationCenter`),
/// collected from the moment the log is made.
private final class MergeLog {
    private let seen = Seen()
    private let task: Task<Void, Never>
    private let observer: any NSObjectProtocol

    init(_ context: ObjectContext) {
        let stream = context.notifications
        let seen = seen
        task = Task {
            for await notification in stream where notification.kind == .objectsDidChange {
                seen.notifications.withLock { $0.append(notification) }
            }
        }
        observer = NotificationCenter.default.addObserver(forName: ObjectContext.objectsDidChangeNotification, object: context, queue: nil) {
            notification in
            let deleted = notification.userInfo?[ObjectContext.deletedObjectIDsKey] as? Set<ObjectID> ?? []
            seen.postedDeletions.withLock { $0.append(deleted) }
        }
    }

    /// The first merge announcement, waiting up to ten seconds.
    func first() async -> ObjectContextNotification? {
        let seen = seen
        _ = await eventually(timeout: .seconds(10)) { !seen.notifications.withLock { $0.isEmpty } }
        return seen.notifications.withLock { $0.first }
    }

    /// The deleted IDs of the `NotificationCenter` posts so far.
    var postedDeletions: [Set<ObjectID>] { seen.postedDeletions.withLock { $0 } }

    func stop() {
        task.cancel()
        NotificationCenter.default.removeObserver(observer)
    }
}

/// An automatic merge announces what it took in as Core Data does: objects inserted by the parent's
/// save, and registered objects it updated or deleted, each in its own set (issue 23, defect 3: a
/// note that arrived by sync posted nothing on the view context).
@Suite struct MergeAnnouncementTests {
    /// Saves a change through a child of the root, as sync's background context does, and returns
    /// the (permanent) ID of the object `change` returns.
    private static func saveThroughRoot(
        _ stack: TestStack, _ change: @escaping @Sendable (ObjectContext) throws -> ObjectID
    ) async throws
        -> ObjectID
    {
        let writer = stack.container.newBackgroundContext(parent: .rootContext)
        return try await writer.perform { context in
            let id = try change(context)
            let object = context.object(with: id)
            try context.save()
            return object.objectID
        }
    }

    /// A book saved through the root, held by an automerging view context (which has read it).
    private static func bookShownInTheView(_ stack: TestStack, _ title: String) async throws -> (ObjectID, ObjectContext) {
        let id = try await saveThroughRoot(stack) { context in
            let book = context.insert(entity: "Book")
            book.setValue(title, forKey: "title")
            return book.objectID
        }
        let view = stack.container.viewContext
        view.automaticallyMergesChangesFromParent = true
        _ = await view.perform { context in context.object(with: id).string("title") }
        return (id, view)
    }

    /// An object inserted by a save into the root is in the view context's inserted set; an object
    /// the view context holds and the same save changed is in the updated set.
    @Test func aMergedInsertionIsAnnouncedAsInserted() async throws {
        let stack = try await TestStack()
        let (shown, view) = try await Self.bookShownInTheView(stack, "Shown")
        let log = MergeLog(view)
        defer { log.stop() }
        let arrived = try await Self.saveThroughRoot(stack) { context in
            try context.existingObject(with: shown).setValue("Shown, renamed", forKey: "title")
            let book = context.insert(entity: "Book")
            book.setValue("Arrived", forKey: "title")
            return book.objectID
        }
        let merged = await log.first()
        #expect(merged?.insertedObjectIDs == [arrived])
        #expect(merged?.updatedObjectIDs == [shown])
        #expect(merged?.deletedObjectIDs.isEmpty == true)
        #expect(await view.perform { context in context.object(with: arrived).string("title") } == "Arrived")
    }

    /// An insertion alone (nothing the view context holds changed) is announced too, and a child of
    /// the view context that merges automatically hears of it as well.
    @Test(arguments: [false, true]) func anInsertionAloneIsAnnounced(inAGrandchild: Bool) async throws {
        let stack = try await TestStack()
        let view = stack.container.viewContext
        view.automaticallyMergesChangesFromParent = true
        let listener = inAGrandchild ? stack.container.newBackgroundContext() : view
        listener.automaticallyMergesChangesFromParent = true
        let log = MergeLog(listener)
        defer { log.stop() }
        let arrived = try await Self.saveThroughRoot(stack) { context in
            let book = context.insert(entity: "Book")
            book.setValue("Only", forKey: "title")
            return book.objectID
        }
        let merged = await log.first()
        #expect(merged?.insertedObjectIDs == [arrived])
    }

    /// A deleted object the view context holds is in the deleted set, not the updated one; the
    /// announcement reaches `NotificationCenter` observers with the same sets.
    @Test func aMergedDeletionIsAnnouncedAsDeleted() async throws {
        let stack = try await TestStack()
        let (doomed, view) = try await Self.bookShownInTheView(stack, "Doomed")
        view.postsToNotificationCenter = true
        defer { view.postsToNotificationCenter = false }
        let log = MergeLog(view)
        defer { log.stop() }
        _ = try await Self.saveThroughRoot(stack) { context in
            context.delete(try context.existingObject(with: doomed))
            return doomed
        }
        let merged = await log.first()
        #expect(merged?.deletedObjectIDs == [doomed])
        #expect(merged?.updatedObjectIDs.isEmpty == true)
        #expect(await eventually(timeout: .seconds(10)) { log.postedDeletions.contains([doomed]) })
    }
}
