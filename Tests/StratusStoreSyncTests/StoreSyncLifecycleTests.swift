import Foundation
import StratusClient
import StratusStore
import StratusStoreSync
import StratusSync
import StratusTesting
import StratusWire
import Testing

/// A notes app's life cycle on two devices, each launch a new `StoreSync` on the same files
/// (issue 23, defects 1, 2 and 9).
@Suite struct StoreSyncLifecycleTests {
    /// The bodies of the notes on a device, sorted by title.
    private static func bodies(_ device: StoreDevice) async throws -> [String] {
        try await device.read { context in
            try context.fetch(FetchRequest(entityName: "Note", sortDescriptors: [.ascending("title")])).map {
                $0.value(forKey: "body") as? String ?? "-"
            }
        }
    }

    private static func setBody(_ body: String, on device: StoreDevice) async throws {
        try await device.edit { context in
            for note in try context.fetch(FetchRequest(entityName: "Note")) { note.setValue(body, forKey: "body") }
        }
    }

    /// Two started devices sharing one note (A made it, B fetched it).
    private static func sharedNote(
        _ world: StoreSyncWorld, title: String, body: String, options: StoreDeviceOptions = StoreDeviceOptions()
    )
        async throws -> (StoreDevice, StoreDevice)
    {
        let a = try await world.device("a", options: options)
        let b = try await world.device("b", options: options)
        try await a.sync.start(push: false)
        try await b.sync.start(push: false)
        try await a.edit { context in
            let note = context.insert(entity: "Note")
            note.setValue(title, forKey: "title")
            note.setValue(body, forKey: "body")
        }
        try await a.sync.captureLocalChanges()
        try await b.sync.sync()
        return (a, b)
    }

    /// The note's body on the server.
    private static func serverBody(_ device: StoreDevice) async throws -> String? {
        let controller = device.sync.controller
        let changes = try await controller.configuration.container.privateCloudDatabase.allRecordZoneChanges(
            inZoneWith: controller.zoneID, since: nil)
        return try changes.modifications().first { $0.recordType == "Note" }?["text"]
    }

    /// Defect 1: A edits a note's body offline; B edits it later, online; A launches, starts, syncs
    /// and stops at once. The conflict's result (B's body: the later change) is in A's store when
    /// `sync()` returns — it used to be written 20 ms later, after `stop()` had closed everything, so
    /// A kept its own body forever — and the status says caught up. A's forced sync afterwards
    /// uploads nothing over B's edit.
    @Test func aResolvedConflictIsInTheStoreWhenSyncReturns() async throws {
        try await StoreSyncWorld.run { world in
            let shared = try await Self.sharedNote(world, title: "Groceries", body: "first draft")
            var a = shared.0
            let b = shared.1
            a = try await world.relaunch(a, offline: true)
            await #expect(throws: (any Error).self) { try await a.sync.start(push: false) }
            try await Self.setBody("written offline on A", on: a)
            try await a.sync.captureLocalChanges()
            #expect(await a.sync.controller.status.pendingCount == 1)

            world.server.advanceClock(by: .seconds(5))
            try await Self.setBody("written later on B", on: b)
            try await b.sync.captureLocalChanges()

            // The launch's start() syncs (without push here, so nothing runs after it) and the app
            // looks at once, then quits at once.
            a = try await world.relaunch(a)
            try await a.sync.start(push: false)
            let held = try await Self.bodies(a)
            let status = await a.sync.controller.status
            #expect(held == ["written later on B"])
            #expect(status.isCaughtUp && !status.isSyncing, "\(status)")

            a = try await world.relaunch(a)
            #expect(try await Self.bodies(a) == ["written later on B"])
            try await a.sync.start(push: false)
            try await a.sync.controller.syncEntities(forced: true)
            #expect(try await Self.serverBody(a) == "written later on B")
            try await b.sync.sync()
            #expect(try await Self.bodies(b) == ["written later on B"])
            try await a.sync.stop()
            try await b.sync.stop()
        }
    }

    /// Defect 2: an edit made while sync was not running (another launch) is dated by its history
    /// transaction, not by the capture: B's later edit wins under "later change wins" (A's, captured
    /// last, used to win).
    @Test func editTimesComeFromTheHistoryNotTheCapture() async throws {
        try await StoreSyncWorld.run { world in
            var options = StoreDeviceOptions()
            options.policy = .latestChangeWins
            let shared = try await Self.sharedNote(world, title: "Plan", body: "draft", options: options)
            var a = shared.0
            let b = shared.1

            // A quits; the app edits its store before sync starts again (the edit waits in the history).
            try await a.sync.stop()
            world.server.advanceClock(by: .seconds(5))
            try await Self.setBody("A's edit, made first", on: a)
            world.server.advanceClock(by: .seconds(5))
            try await Self.setBody("B's edit, made later", on: b)
            try await b.sync.captureLocalChanges()
            world.server.advanceClock(by: .seconds(5))

            try a.store.close()
            a = try await world.device("a", options: options)
            try await a.sync.start(push: false)
            try await b.sync.sync()
            #expect(try await Self.bodies(a) == ["B's edit, made later"])
            #expect(try await Self.bodies(b) == ["B's edit, made later"])
            try await a.sync.stop()
            try await b.sync.stop()
        }
    }

    /// Defect 9: A moves a note into a new folder while B edits the note. B's merge keeps both; the
    /// folder, which B had not fetched yet, is linked once it arrives instead of being written as
    /// empty for good (the change tag then matched, so no later sync healed it).
    @Test func aMergedReferenceToAnUnfetchedRecordIsLinkedWhenItArrives() async throws {
        try await StoreSyncWorld.run { world in
            let a = try await world.device("a")
            let b = try await world.device("b")
            try await a.sync.start(push: false)
            try await b.sync.start(push: false)
            try await a.edit { context in context.insert(entity: "Note").setValue("Loose", forKey: "title") }
            try await a.sync.captureLocalChanges()
            try await b.sync.sync()

            try await a.edit { context in
                let folder = context.insert(entity: "Folder")
                folder.setValue("Filed", forKey: "name")
                try context.fetch(FetchRequest(entityName: "Note")).first?.setValue(folder, forKey: "folder")
            }
            try await a.sync.captureLocalChanges()

            // B edits the note before fetching: its upload meets A's version and merges it; the
            // folder it now refers to is not on B yet.
            try await Self.setBody("edited on B", on: b)
            try await b.sync.waitForIdle()
            try await b.sync.sync()
            let onB = try await b.read { context in
                try context.fetch(FetchRequest(entityName: "Note")).map { note in
                    "\((note.value(forKey: "folder") as? ManagedObject)?.value(forKey: "name") as? String ?? "nil")|\(note.value(forKey: "body") as? String ?? "-")"
                }
            }
            #expect(onB == ["Filed|edited on B"])
            try await a.sync.sync()
            #expect(try await Self.bodies(a) == ["edited on B"])
            try await a.sync.stop()
            try await b.sync.stop()
        }
    }
}
