import Foundation
import StratusClient
import StratusStore
import StratusStoreSync
import StratusSync
import StratusTesting
import Testing

extension ManagedEntitySyncTests {
    /// `StoreSync`'s automatic capture and the objects' own `.cloud` calls together: each change is
    /// uploaded once, whichever comes first. Nested in the serialized suite: `makeCurrent()` is per process.
    @Suite struct StoreSyncCloudCallTests {
        @Test func captureAndCloudCallsUploadEachChangeOnce() async throws {
            try await StoreSyncWorld.run { world in
                let counter = SaveCounter()
                var options = StoreDeviceOptions()
                options.network = counter
                let a = try await world.device("a", options: options)
                let b = try await world.device("b")
                try await a.sync.start(push: false)
                try await b.sync.start(push: false)
                a.sync.makeCurrent()

                counter.watch("Plan")
                let context = a.store.newBackgroundContext()
                context.automaticallyMergesChangesFromParent = true  // sees sync's write-back (the sync ID) …
                context.mergePolicy = .objectTrump  // … and a rename saved meanwhile keeps it
                let id = try await context.perform { context in
                    let note = context.insert(NoteObject.self)
                    note.title = "Plan"
                    try context.save()
                    return note.objectID
                }
                try await context.saveChain()
                let note = try await SyncConfinement(context: context).run(handing: { try context.existingObject(NoteObject.self, with: id) })
                try await note.cloud.save()  // the .cloud call first …
                try await a.sync.captureLocalChanges()  // … then the capture: nothing more
                try await a.sync.waitForIdle()
                #expect(counter.saves == 1)
                let syncID = try #require(try await a.read { try $0.existingObject(with: id).value(forKey: "syncID") as? String })

                counter.watch(syncID)
                try await rename(id, to: "Plan B", in: context)
                try await note.cloud.save()
                try await a.sync.captureLocalChanges()
                try await a.sync.waitForIdle()
                #expect(counter.saves == 2, "one more: the rename")

                try await rename(id, to: "Plan C", in: context)
                try await a.sync.captureLocalChanges()  // the capture first …
                try await a.sync.waitForIdle()
                #expect(try await note.cloud.save() == nil, "… then the .cloud call: nothing differs")
                #expect(counter.saves == 3, "one more: the second rename")

                try await b.sync.sync()
                #expect(try await b.titles() == ["Plan C"])
            }
        }

        private func rename(_ id: ObjectID, to title: String, in context: ObjectContext) async throws {
            try await context.perform { context in
                context.object(NoteObject.self, with: id).title = title
                try context.save()
            }
            try await context.saveChain()
        }
    }
}

/// A note of the notes model as a `SyncableManagedObject`, for its `.cloud` calls.
final class NoteObject: SyncableManagedObject {
    static let entityName = "Note"
    static let mapping = ["title": "title", "body": "text"]
    let object: ManagedObject
    init(object: ManagedObject) { self.object = object }

    var title: String {
        get { attribute("title") }
        set { setAttribute("title", newValue) }
    }
}
