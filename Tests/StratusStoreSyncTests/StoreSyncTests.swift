import Foundation
import StratusClient
import StratusLogging
import StratusStore
import StratusStoreSync
import StratusSync
import StratusTesting
import StratusWire
import Testing

/// Two StratusStore devices syncing through one real server, with no delegate code.
@Suite struct StoreSyncTests {
    /// Creates, updates and deletes with to-one and to-many references reach the other store; sync's
    /// own writes (applied changes, record names, server dates) are never uploaded again.
    @Test func createsUpdatesAndDeletesReachTheOtherStoreWithoutEcho() async throws {
        try await StoreSyncWorld.run { world in
            let a = try await world.device("a")
            let b = try await world.device("b")
            try await a.sync.start(push: false)
            try await b.sync.start(push: false)

            try await a.edit { context in
                let folder = context.insert(entity: "Folder")
                folder.setValue("Work", forKey: "name")
                let urgent = context.insert(entity: "Tag")
                urgent.setValue("urgent", forKey: "label")
                let later = context.insert(entity: "Tag")
                later.setValue("later", forKey: "label")
                let note = context.insert(entity: "Note")
                note.setValue("Plan", forKey: "title")
                note.setValue("Q3", forKey: "body")
                note.setValue(7, forKey: "rank")
                note.setValue(true, forKey: "pinned")
                note.setValue(folder, forKey: "folder")
                note.setValue(Set([urgent, later]), forKey: "tags")
            }
            let noteID = try #require(try await a.read { try $0.fetchObjectIDs(FetchRequest(entityName: "Note")).first })
            try await a.sync.captureLocalChanges()
            #expect(await a.sync.capturedChanges == 4)
            // A's own write-back (record names, server dates) is not captured again.
            try await a.sync.captureLocalChanges()
            #expect(await a.sync.capturedChanges == 4)
            let syncID = try #require(try await a.read { try $0.existingObject(with: noteID).value(forKey: "syncID") as? String })

            try await b.sync.sync()
            let arrived = try await b.read { context in
                let notes = try context.fetch(FetchRequest(entityName: "Note"))
                return notes.map { note in
                    let folder = note.value(forKey: "folder") as? ManagedObject
                    let tags = (note.value(forKey: "tags") as? Set<ManagedObject> ?? []).compactMap { $0.value(forKey: "label") as? String }
                    return [
                        note.value(forKey: "syncID") as? String ?? "-", note.value(forKey: "title") as? String ?? "-",
                        note.value(forKey: "body") as? String ?? "-", "\(note.value(forKey: "rank") ?? "-")",
                        "\(note.value(forKey: "pinned") ?? "-")", folder?.value(forKey: "name") as? String ?? "-",
                        tags.sorted().joined(separator: ","), note.value(forKey: "syncModified") == nil ? "no date" : "dated",
                    ]
                }
            }
            #expect(arrived == [[syncID, "Plan", "Q3", "7", "true", "Work", "later,urgent", "dated"]])
            // What sync wrote on B is not uploaded back.
            try await b.sync.captureLocalChanges()
            #expect(await b.sync.capturedChanges == 0)

            // An update of an attribute and of a relationship.
            try await a.edit { context in
                let note = try context.existingObject(with: noteID)
                note.setValue("Plan v2", forKey: "title")
                let tags = note.value(forKey: "tags") as? Set<ManagedObject> ?? []
                note.setValue(tags.filter { $0.value(forKey: "label") as? String == "urgent" }, forKey: "tags")
            }
            try await a.sync.captureLocalChanges()
            #expect(await a.sync.capturedChanges == 5)
            try await b.sync.sync()
            let updated = try await b.read { context in
                let note = try #require(try context.fetch(FetchRequest(entityName: "Note")).first)
                let tags = (note.value(forKey: "tags") as? Set<ManagedObject> ?? []).compactMap { $0.value(forKey: "label") as? String }
                return [note.value(forKey: "title") as? String ?? "-", tags.sorted().joined(separator: ",")]
            }
            #expect(updated == ["Plan v2", "urgent"])
            try await b.sync.captureLocalChanges()
            #expect(await b.sync.capturedChanges == 0)

            // A deletion on B reaches A.
            try await b.edit { context in
                for note in try context.fetch(FetchRequest(entityName: "Note")) { context.delete(note) }
            }
            try await b.sync.captureLocalChanges()
            #expect(await b.sync.capturedChanges == 1)
            try await a.sync.sync()
            #expect(try await a.titles().isEmpty)
            #expect(try await a.read { try $0.count(for: FetchRequest(entityName: "Folder")) } == 1)
            try await a.sync.captureLocalChanges()
            #expect(await a.sync.capturedChanges == 5)
            try await a.sync.stop()
            try await b.sync.stop()
        }
    }

    /// A remote deletion that cascades locally (B's model deletes a folder's notes with it) uploads the
    /// cascaded deletions, so the server does not keep notes whose folder is gone and A loses them too.
    /// The folder's own deletion, already on the server, is not sent back, and nothing is sent twice.
    @Test func cascadedDeletionsOfARemoteDeletionReachTheServer() async throws {
        try await StoreSyncWorld.run { world in
            let a = try await world.device("a")
            let b = try await world.device("b", folderCascades: true)
            try await a.sync.start(push: false)
            try await b.sync.start(push: false)
            try await a.edit { context in
                context.insertFolder("Old", notes: ["one", "two"])
                context.insert(entity: "Note").setValue("loose", forKey: "title")
            }
            try await a.sync.captureLocalChanges()
            try await b.sync.sync()
            #expect(try await b.titles() == ["loose", "one", "two"])

            // Another client (no delete rules of its own) deletes the folder's record on the server.
            let folderName = try #require(
                try await a.read { try $0.fetch(FetchRequest(entityName: "Folder")).first?.value(forKey: "syncID") as? String })
            let zone = ZoneID(zoneName: a.sync.controller.configuration.zoneName)
            let database = a.sync.controller.configuration.container.privateCloudDatabase
            _ = try await database.modifyRecords(saving: [], deleting: [RecordID(recordName: folderName, zoneID: zone)], atomically: false)

            // B applies it and its model cascades to the two notes: those deletions are uploaded.
            let before = await b.sync.capturedChanges
            try await b.sync.sync()
            #expect(try await b.titles() == ["loose"])
            try await b.sync.captureLocalChanges()
            #expect(await b.sync.capturedChanges == before + 2)  // the two notes, not the folder
            try await b.sync.sync()
            #expect(await b.sync.capturedChanges == before + 2)

            try await a.sync.sync()
            #expect(try await a.titles() == ["loose"])
            #expect(try await a.read { try $0.count(for: FetchRequest(entityName: "Folder")) } == 0)
            try await a.sync.stop()
            try await b.sync.stop()
        }
    }

    /// Edits of one note on both devices while B is offline merge field by field, on both stores;
    /// the merged value the controller writes after B's replayed upload reaches B's store.
    @Test func offlineEditsMergeIntoBothStores() async throws {
        try await StoreSyncWorld.run { world in
            let a = try await world.device("a")
            let b = try await world.device("b")
            try await a.sync.start(push: false)
            try await b.sync.start(push: false)
            try await a.edit { context in context.insert(entity: "Note").setValue("Draft", forKey: "title") }
            try await a.sync.captureLocalChanges()
            try await b.sync.sync()
            b.network.isOffline = true
            try await b.edit { context in
                try context.fetch(FetchRequest(entityName: "Note")).first?.setValue("written offline", forKey: "body")
            }
            try await b.sync.captureLocalChanges()
            #expect(await b.sync.controller.status.pendingCount == 1)
            try await a.edit { context in try context.fetch(FetchRequest(entityName: "Note")).first?.setValue("Final", forKey: "title") }
            try await a.sync.captureLocalChanges()
            b.network.isOffline = false
            try await b.sync.sync()
            try await a.sync.sync()
            let merged = ["Final", "written offline"]
            for device in [a, b] {
                let values = { @Sendable () async throws -> [String] in
                    try await device.read { context in
                        try context.fetch(FetchRequest(entityName: "Note")).flatMap { note in
                            [note.value(forKey: "title") as? String ?? "-", note.value(forKey: "body") as? String ?? "-"]
                        }
                    }
                }
                let held = try await eventually(timeout: .seconds(10)) { try await values() == merged }
                let final = try await values()
                #expect(held, "\(final)")
            }
            #expect(await b.sync.controller.status.pendingCount == 0)
            try await a.sync.stop()
            try await b.sync.stop()
        }
    }

    /// With push, a note saved on A shows up in B's view context without B doing anything, and a
    /// later edit refreshes the object the view context already holds.
    @Test func pushedChangesAreMergedIntoTheViewContext() async throws {
        try await StoreSyncWorld.run { world in
            let a = try await world.device("a")
            let b = try await world.device("b")
            try await a.sync.start(push: false)
            try await b.sync.start()
            // Once push's catch-up sync has committed, whatever B receives comes by push.
            #expect(await eventually { await b.sync.controller.status.lastSyncDate != nil })
            let viewContext = b.store.viewContext
            try await a.edit { context in
                context.insert(entity: "Note").setValue("Hello from A", forKey: "title")
            }
            let seen = await eventually {
                let titles = try? await viewContext.perform { context in
                    try context.fetch(FetchRequest(entityName: "Note")).compactMap { $0.value(forKey: "title") as? String }
                }
                return titles == ["Hello from A"]
            }
            #expect(seen)
            // The object the view context already holds is refreshed by the merge, not only new fetches.
            let id = try #require(try await viewContext.perform { try $0.fetchObjectIDs(FetchRequest(entityName: "Note")).first })
            #expect(await viewContext.perform { $0.object(with: id).value(forKey: "title") as? String } == "Hello from A")
            try await a.edit { context in
                try context.fetch(FetchRequest(entityName: "Note")).first?.setValue("Edited on A", forKey: "title")
            }
            let merged = await eventually {
                await viewContext.perform { $0.object(with: id).value(forKey: "title") as? String } == "Edited on A"
            }
            #expect(merged)
            try await a.sync.stop()
            try await b.sync.stop()
        }
    }

    /// Started offline, sync follows the store anyway (changes wait in the outbox); a later start()
    /// once the server answers starts push and replays them.
    @Test func startingOfflineQueuesAndALaterStartReplays() async throws {
        try await StoreSyncWorld.run { world in
            let a = try await world.device("a")
            let b = try await world.device("b")
            a.network.isOffline = true
            await #expect(throws: (any Error).self) { try await a.sync.start(notifications: .init()) }
            try await a.edit { context in context.insert(entity: "Note").setValue("Written offline", forKey: "title") }
            try await a.sync.captureLocalChanges()
            #expect(await a.sync.controller.status.pendingCount == 1)
            a.network.isOffline = false
            try await a.sync.start()
            #expect(await a.sync.controller.isPushing)
            #expect(await eventually { await a.sync.controller.status.pendingCount == 0 })
            try await b.sync.start(push: false)
            #expect(try await b.titles() == ["Written offline"])
            try await a.sync.stop()
            try await b.sync.stop()
        }
    }

    /// Data saved before sync was adopted, whose history is pruned, is uploaded by the first start.
    @Test func firstStartAdoptsExistingDataEvenWithoutHistory() async throws {
        try await StoreSyncWorld.run { world in
            let a = try await world.device("a")
            let b = try await world.device("b")
            try await a.edit { context in context.insertFolder("Old", notes: ["Kept since 2019", "Kept since 2021"]) }
            try await a.store.pruneHistory(through: try #require(try await a.store.lastHistoryToken()))
            try await a.sync.start(push: false)
            try await b.sync.start(push: false)
            #expect(try await b.titles() == ["Kept since 2019", "Kept since 2021"])
            let folders = try await b.read { context in
                try context.fetch(FetchRequest(entityName: "Note")).compactMap {
                    ($0.value(forKey: "folder") as? ManagedObject)?.value(forKey: "name") as? String
                }
            }
            #expect(folders == ["Old", "Old"])
            // Nothing is uploaded twice afterwards.
            try await a.sync.captureLocalChanges()
            let (captured, pending) = (await a.sync.capturedChanges, await a.sync.controller.status.pendingCount)
            #expect(captured == 0 && pending == 0)
            try await a.sync.stop()
            try await b.sync.stop()
        }
    }

    /// A mapping that names an attribute the model lacks is refused, naming it.
    @Test func mappingsAreCheckedAgainstTheModel() async throws {
        enum Broken: StoreEntityMapping {
            static let entityName = "Note"
            static let attributes = ["subtitle": "subtitle"]
        }
        try await StoreSyncWorld.run { world in
            let device = try await world.device("a")
            let configuration = device.sync.controller.configuration
            let error = try #require(throws: SyncError.self) {
                try StoreSync(store: device.store, entities: [Broken.self], configuration: configuration)
            }
            #expect(error.code == .missingKey && error.message.contains("'subtitle'"))
            let dangling = try #require(throws: SyncError.self) {
                try StoreSync(store: device.store, entities: [NoteSync.self], configuration: configuration)
            }
            #expect(dangling.code == .unknownEntityType && dangling.message.contains("Folder"))
            try await device.sync.stop()
        }
    }

    /// A model whose entity lacks the two sync attributes is refused with the call that adds them.
    @Test func aModelWithoutTheSyncAttributesNamesStoreSyncSyncAttributes() async throws {
        try await StoreSyncWorld.run { world in
            let model = try ObjectModel(version: "1", entities: [EntityDescription("Tag", attributes: [AttributeDescription("label", .string)])])
            let error = try await Self.setupError(model: model, mapping: TagSync.self, in: world)
            #expect(error.message.contains("StoreSync.syncAttributes(syncIdKey: \"syncID\", changeDateKey: \"syncModified\")"))
        }
    }

    /// A mapping's keys declared `String?` are the ones read: the model is checked for those attributes.
    @Test func keysDeclaredOptionalOnAMappingAreRead() async throws {
        try await StoreSyncWorld.run { world in
            let tag = EntityDescription("Tag", attributes: [AttributeDescription("label", .string)] + StoreSync.syncAttributes())
            let error = try await Self.setupError(model: try ObjectModel(version: "1", entities: [tag]), mapping: RemoteKeyTagSync.self, in: world)
            #expect(error.message.contains("StoreSync.syncAttributes(syncIdKey: \"remoteID\", changeDateKey: \"remoteModified\")"))
        }
    }

    /// The error `StoreSync` refuses `mapping` with over a store of `model`.
    static func setupError(model: ObjectModel, mapping: any StoreEntityMapping.Type, in world: StoreSyncWorld) async throws -> SyncError {
        let store = PersistentContainer(name: "bare", model: model, url: world.directory.url.appendingPathComponent("bare.store"))
        try await store.loadPersistentStores()
        defer { try? store.close() }
        let configuration = SyncConfiguration(
            container: world.server.deviceContainer(transport: StoreSyncWorld.sharedTransport), entityTypes: [], deviceID: "bare",
            bookkeepingPath: world.directory.path("bare.sync.sqlite"), logger: .disabled)
        return try #require(throws: SyncError.self) { try StoreSync(store: store, entities: [mapping], configuration: configuration) }
    }
}

/// Tags whose sync attributes are named by keys declared `String?`.
enum RemoteKeyTagSync: StoreEntityMapping {
    static let entityName = "Tag"
    static let attributes = ["label": "label"]
    static let syncIdKey: String? = "remoteID"
    static let changeDateKey: String? = "remoteModified"
}
