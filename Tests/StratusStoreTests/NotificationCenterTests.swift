import Foundation
import StratusStore
import Synchronization
import Testing

/// A notification as an observer saw it.
private struct Entry: Sendable {
    var name: Notification.Name
    var fromObject: Bool
    var inserted: Set<ObjectID>?
    var updated: Set<ObjectID>?
    var deleted: Set<ObjectID>?
    var hasToken: Bool
    var decoded: ObjectContextNotification?
}

/// The entries observers append to, from whichever thread posts.
private final class EntryLog: Sendable {
    private let entries = Mutex<[Entry]>([])

    func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }

    var all: [Entry] { entries.withLock { $0 } }
}

/// Records a context's notifications posted on `NotificationCenter.default`.
private final class Recorder {
    private let log = EntryLog()
    private var observers: [any NSObjectProtocol] = []

    init(_ context: ObjectContext) {
        let log = log
        for name in [ObjectContext.objectsDidChangeNotification, ObjectContext.didSaveNotification] {
            observers.append(
                NotificationCenter.default.addObserver(forName: name, object: context, queue: nil) { notification in
                    let info = notification.userInfo
                    log.append(
                        Entry(
                            name: notification.name, fromObject: (notification.object as? ObjectContext) === context,
                            inserted: info?[ObjectContext.insertedObjectIDsKey] as? Set<ObjectID>,
                            updated: info?[ObjectContext.updatedObjectIDsKey] as? Set<ObjectID>,
                            deleted: info?[ObjectContext.deletedObjectIDsKey] as? Set<ObjectID>,
                            hasToken: info?[ObjectContext.historyTokenKey] is HistoryToken,
                            decoded: ObjectContextNotification(notification)))
                })
        }
    }

    var recorded: [Entry] { log.all }

    func stop() {
        for observer in observers {
            NotificationCenter.default.removeObserver(observer)
        }
    }
}

@Suite struct NotificationCenterTests {
    /// Inserting and saving posts objects-did-change, then did-save with the permanent ID, with the context as object.
    @Test func insertAndSavePostOnNotificationCenter() async throws {
        let stack = try await TestStack()
        let context = stack.container.newBackgroundContext()
        context.postsToNotificationCenter = true
        let recorder = Recorder(context)
        defer { recorder.stop() }
        let (temporary, permanent) = try await context.perform { context in
            let tag = context.insert(entity: "Tag")
            tag.setValue("news", forKey: "label")
            let temporary = tag.objectID
            try context.save()
            return (temporary, tag.objectID)
        }
        let entries = recorder.recorded
        #expect(entries.map(\.name) == [ObjectContext.objectsDidChangeNotification, ObjectContext.didSaveNotification])
        #expect(entries.allSatisfy { $0.fromObject })
        #expect(entries.first?.inserted == [temporary])
        #expect(entries.last?.inserted == [permanent])
        #expect(entries.last?.updated == [])
        #expect(entries.last?.deleted == [])
        #expect(entries.last?.hasToken == false)
        #expect(entries.last?.decoded?.kind == .didSave)
        #expect(entries.last?.decoded?.contextName == context.name)
    }

    /// Updates and deletions are reported by ID, and a root save carries its history token.
    @Test func updatesDeletionsAndRootSave() async throws {
        let stack = try await TestStack()
        let context = stack.container.newBackgroundContext(parent: .rootContext)
        let (kept, gone) = try await context.perform { context in
            let kept = context.insert(entity: "Tag")
            kept.setValue("kept", forKey: "label")
            let gone = context.insert(entity: "Tag")
            gone.setValue("gone", forKey: "label")
            try context.save()
            return (kept.objectID, gone.objectID)
        }
        try await context.saveChain()
        context.postsToNotificationCenter = true
        let root = stack.container.rootContext
        root.postsToNotificationCenter = true
        let recorder = Recorder(context)
        let rootRecorder = Recorder(root)
        defer {
            recorder.stop()
            rootRecorder.stop()
        }
        await context.perform { context in
            context.object(with: kept).setValue("renamed", forKey: "label")
            context.delete(context.object(with: gone))
        }
        try await context.saveChain()
        let entries = recorder.recorded
        #expect(entries.map(\.name) == [ObjectContext.objectsDidChangeNotification, ObjectContext.didSaveNotification])
        #expect(entries.allSatisfy { $0.updated == [kept] && $0.deleted == [gone] && $0.inserted == [] })
        let rootSave = rootRecorder.recorded.last
        #expect(rootSave?.name == ObjectContext.didSaveNotification)
        #expect(rootSave?.updated == [kept])
        #expect(rootSave?.deleted == [gone])
        #expect(rootSave?.hasToken == true)
    }

    /// A context posts nothing on NotificationCenter unless asked to, and stops when asked to.
    @Test func offByDefault() async throws {
        let stack = try await TestStack()
        let context = stack.container.newBackgroundContext()
        #expect(context.postsToNotificationCenter == false)
        let recorder = Recorder(context)
        defer { recorder.stop() }
        try await context.perform { context in
            context.insert(entity: "Tag").setValue("quiet", forKey: "label")
            try context.save()
        }
        #expect(recorder.recorded.isEmpty)
        context.postsToNotificationCenter = true
        try await context.perform { context in
            context.insert(entity: "Tag").setValue("loud", forKey: "label")
            try context.save()
        }
        #expect(recorder.recorded.count == 2)
        context.postsToNotificationCenter = false
        try await context.perform { context in
            context.insert(entity: "Tag").setValue("quiet again", forKey: "label")
            try context.save()
        }
        #expect(recorder.recorded.count == 2)
    }
}
