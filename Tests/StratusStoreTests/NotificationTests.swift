import StratusStore
import Testing

@Suite struct NotificationTests {
    /// A perform block that inserts and saves posts objects-did-change, then did-save with the permanent ID.
    @Test func insertAndSavePostChangeThenSave() async throws {
        let stack = try await TestStack()
        let context = stack.container.newBackgroundContext()
        let stream = context.notifications
        let collected = Task {
            var notifications: [ObjectContextNotification] = []
            for await notification in stream {
                notifications.append(notification)
                if notification.kind == .didSave { break }
            }
            return notifications
        }
        let (temporary, permanent) = try await context.perform { context in
            let tag = context.insert(entity: "Tag")
            tag.setValue("news", forKey: "label")
            let temporary = tag.objectID
            try context.save()
            return (temporary, tag.objectID)
        }
        let notifications = await collected.value
        #expect(notifications.map(\.kind) == [.objectsDidChange, .didSave])
        #expect(notifications[0].insertedObjectIDs == [temporary])
        #expect(notifications[1].insertedObjectIDs == [permanent])
        #expect(notifications[1].contextName == context.name)
    }

    /// A child's save shows up in the parent as objects-did-change with the pushed IDs.
    @Test func childSaveIsAnnouncedByTheParent() async throws {
        let stack = try await TestStack()
        let view = stack.container.viewContext
        let stream = view.notifications
        let first = Task { () -> ObjectContextNotification? in
            for await notification in stream { return notification }
            return nil
        }
        let background = stack.container.newBackgroundContext()
        let id = try await background.perform { context in
            let tag = context.insert(entity: "Tag")
            tag.setValue("pushed", forKey: "label")
            try context.save()
            return tag.objectID
        }
        let notification = await first.value
        #expect(notification?.kind == .objectsDidChange)
        #expect(notification?.insertedObjectIDs == [id])
        #expect(notification?.contextName == view.name)
    }

    /// Updates and deletions are reported by ID.
    @Test func updatesAndDeletionsAreReported() async throws {
        let stack = try await TestStack()
        let context = stack.container.newBackgroundContext()
        let (kept, gone) = try await context.perform { context in
            let kept = context.insert(entity: "Tag")
            kept.setValue("kept", forKey: "label")
            let gone = context.insert(entity: "Tag")
            gone.setValue("gone", forKey: "label")
            try context.save()
            return (kept.objectID, gone.objectID)
        }
        let stream = context.notifications
        let next = Task { () -> ObjectContextNotification? in
            for await notification in stream { return notification }
            return nil
        }
        await context.perform { context in
            context.object(with: kept).setValue("renamed", forKey: "label")
            context.delete(context.object(with: gone))
        }
        let notification = await next.value
        #expect(notification?.updatedObjectIDs == [kept])
        #expect(notification?.deletedObjectIDs == [gone])
    }
}
