import Foundation
import StratusClient
import StratusLogging
import StratusSync
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// Several devices, each with its own store, bookkeeping and device ID, against one real server.
@Suite struct SyncEndToEndTests {
    /// Creates, updates and deletes with to-one and to-many references and a weak cascade reach the other device.
    @Test func createsUpdatesAndDeletesReachTheOtherDevice() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let b = try world.device("b")

            let folder = make(Folder.self, ["name": "Work"])
            let pdf = make(Attachment.self, ["fileName": "plan.pdf"])
            let png = make(Attachment.self, ["fileName": "chart.png"])
            folder["attachments"] = [pdf, png] as [any SyncableEntity]
            let urgent = make(Tag.self, ["name": "urgent"])
            let note = make(Note.self, ["title": "Plan", "body": "Q3", "rank": 2, "scratch": "local only"])
            note["folder"] = folder
            note["tags"] = [urgent] as [any SyncableEntity]
            a.store.insert(folder, pdf, png, urgent, note)

            // Saving the note saves what it references, and writes the record ID and server date back.
            let saved = try #require(try await a.cloud(note).save())
            #expect(note.syncID == saved.recordID.recordName)
            // The server's date, on this device's clock (the same clock here, but for the skew measured
            // across the request; SyncChangeDateTests checks a clock an hour off).
            #expect(abs((note.modified ?? .distantPast).timeIntervalSince(saved.modificationDate ?? .distantFuture)) < 1)
            #expect(folder.syncID != nil && pdf.syncID != nil && urgent.syncID != nil)
            #expect(saved["scratch"] as FieldValue? == nil)

            try await b.sync.sync()
            let bNote = try #require(b.store.find(Note.self, note.syncID))
            #expect(bNote.title == "Plan" && bNote.body == "Q3" && bNote["rank"] as? Int == 2)
            #expect(bNote["scratch"] == nil)
            let bFolder = try #require(bNote.folder)
            #expect(bFolder.name == "Work")
            #expect(Set(bFolder.attachments.compactMap(\.fileName)) == ["plan.pdf", "chart.png"])
            #expect(bNote.tags.map(\.name) == ["urgent"])
            #expect(b.store.all(Note.self).count == 1 && b.store.all(Attachment.self).count == 2)

            // An update arrives as an update of the same entity.
            note["title"] = "Plan v2"
            try await a.cloud(note).save(keys: ["title"])
            let changes = try await b.sync.sync()
            #expect(changes.updated.count == 1 && changes.inserted.isEmpty)
            #expect(bNote.title == "Plan v2" && bNote.body == "Q3")

            // Deleting the folder deletes the attachments it owns (weak), on every device.
            try await a.cloud(folder).delete()
            a.store.remove(folder)
            let deletion = try await b.sync.sync()
            #expect(Set(deletion.deleted.map(\.syncID)) == Set([folder.syncID, pdf.syncID, png.syncID].compactMap { $0 }))
            #expect(b.store.all(Folder.self).isEmpty && b.store.all(Attachment.self).isEmpty)
            #expect(b.store.all(Note.self).count == 1)

            // A gets the cascade too, and then both are caught up.
            try await a.sync.sync()
            #expect(a.store.all(Attachment.self).isEmpty)
            #expect(await a.sync.status.isCaughtUp)
            #expect(await b.sync.status.isCaughtUp)
        }
    }

    /// Three devices: a create on one and a delete on another reach all of them.
    @Test func threeDevicesConverge() async throws {
        try await SyncWorld.run { world in
            let devices = try ["a", "b", "c"].map { try world.device($0) }
            let tag = make(Tag.self, ["name": "home"])
            devices[0].store.insert(tag)
            try await devices[0].cloud(tag).save()
            for device in devices { try await device.sync.sync() }
            for device in devices { #expect(device.store.find(Tag.self, tag.syncID)?.name == "home") }

            let onC = try #require(devices[2].store.find(Tag.self, tag.syncID))
            onC["name"] = "house"
            try await devices[2].cloud(onC).save()
            for device in devices { try await device.sync.sync() }
            for device in devices { #expect(device.store.find(Tag.self, tag.syncID)?.name == "house") }

            let onB = try #require(devices[1].store.find(Tag.self, tag.syncID))
            try await devices[1].cloud(onB).delete()
            devices[1].store.remove(onB)
            for device in devices { try await device.sync.sync() }
            for device in devices { #expect(device.store.all(Tag.self).isEmpty) }
        }
    }

    /// Fifteen quick saves of new objects create fifteen records; one object saved fifteen times creates one.
    @Test func fifteenQuickSavesMakeNoDuplicates() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let b = try world.device("b")
            let tags = (0..<15).map { make(Tag.self, ["name": "t\($0)"]) }
            for tag in tags { a.store.insert(tag) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for tag in tags { group.addTask { _ = try await a.cloud(tag).save() } }
                try await group.waitForAll()
            }
            #expect(Set(tags.compactMap(\.syncID)).count == 15)

            let single = make(Note.self, ["title": "v0"])
            a.store.insert(single)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 1...15 {
                    group.addTask {
                        single["title"] = "v\(index)"
                        _ = try await a.cloud(single).save()
                    }
                }
                try await group.waitForAll()
            }
            try await a.cloud(single).save()

            let changes = try await b.sync.sync()
            #expect(changes.inserted.count == 16)
            #expect(b.store.all(Tag.self).count == 15)
            #expect(b.store.all(Note.self).count == 1)
            #expect(b.store.all(Note.self).first?.title == single.title)
            #expect(await a.sync.status.pendingCount == 0)
        }
    }

    /// Paused, saves wait in the outbox (status shows them); resuming replays them in order.
    @Test func pauseAndResume() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let b = try world.device("b")
            try await a.sync.sync()
            await a.sync.pause()
            let first = make(Tag.self, ["name": "first"])
            let second = make(Tag.self, ["name": "second"])
            a.store.insert(first, second)
            #expect(try await a.cloud(first).save() == nil)
            #expect(try await a.cloud(second).save() == nil)
            first["name"] = "first, edited"
            #expect(try await a.cloud(first).save() == nil)
            let paused = await a.sync.status
            #expect(paused.isPaused && paused.pendingCount == 2 && !paused.isCaughtUp)
            #expect(try await a.sync.sync().isEmpty)

            try await b.sync.sync()
            #expect(b.store.all(Tag.self).isEmpty)

            try await a.sync.resume()
            #expect(await a.sync.status.pendingCount == 0)
            try await b.sync.sync()
            #expect(Set(b.store.all(Tag.self).compactMap(\.name)) == ["first, edited", "second"])
        }
    }

    /// Changes made offline survive a restart (a new controller on the same bookkeeping file) and are replayed.
    @Test func outboxSurvivesARestart() async throws {
        try await SyncWorld.run { world in
            let store = MemoryStore()
            let a = try world.device("a", store: store)
            let b = try world.device("b")
            try await a.sync.sync()
            a.transport.isOffline = true
            let tag = make(Tag.self, ["name": "offline"])
            store.insert(tag)
            #expect(try await a.cloud(tag).save() == nil)
            await #expect(throws: (any Error).self) { try await a.sync.sync() }
            let offline = await a.sync.status
            #expect(offline.pendingCount == 1 && offline.lastError != nil && !offline.isCaughtUp)
            try await a.sync.close()

            let restarted = try world.device("a", store: store, bookkeeping: a.bookkeepingPath)
            #expect(await restarted.sync.status.pendingCount == 1)
            try await restarted.sync.sync()
            #expect(await restarted.sync.status.pendingCount == 0)
            try await b.sync.sync()
            #expect(b.store.all(Tag.self).map(\.name) == ["offline"])
            #expect(await restarted.sync.status.lastError == nil)
        }
    }

    /// Until the delegate calls finishSync, the token and last-synced versions stay: the same changes come again.
    @Test func nothingAdvancesWithoutFinishSync() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let b = try world.device("b")
            b.store.autoFinish = false
            let tag = make(Tag.self, ["name": "once"])
            a.store.insert(tag)
            try await a.cloud(tag).save()

            let first = try await b.sync.sync()
            #expect(first.inserted.count == 1)
            let before = await b.sync.status
            #expect(before.lastSyncDate == nil)
            #expect(!before.isCaughtUp)
            let again = try await b.sync.sync()
            #expect(again.updated.map(\.record.recordID.recordName) == [tag.syncID].compactMap { $0 })

            let held = b.store.state.withLock { $0.held }
            #expect(held.count == 2)
            let newest = try #require(held.last)
            let oldest = try #require(held.first)
            try await newest()
            // A stale finish (from an older batch) changes nothing.
            try await oldest()
            let after = await b.sync.status
            #expect(after.lastSyncDate != nil)
            let nothing = try await b.sync.sync()
            #expect(nothing.isEmpty)
            let caughtUp = await b.sync.status.isCaughtUp
            #expect(caughtUp)
        }
    }

    /// The status sequence reports syncing and ends caught up.
    @Test func statusUpdatesReportProgress() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let updates = await a.sync.statusUpdates()
            let tag = make(Tag.self, ["name": "x"])
            a.store.insert(tag)
            try await a.cloud(tag).save()
            try await a.sync.sync()
            var seen: [SyncStatus] = []
            for await status in updates {
                seen.append(status)
                if status.isCaughtUp { break }
            }
            #expect(seen.contains { $0.isSyncing })
            #expect(seen.contains { $0.pendingCount == 1 })
            #expect(seen.last?.isCaughtUp == true && seen.last?.lastSyncDate != nil)
        }
    }

    /// `entity.cloud` uses the task's controller; without one it fails clearly (checked in a child
    /// process: other suites make their controllers current for the whole process, `makeCurrent()`).
    @Test func cloudProxyUsesTheCurrentController() async throws {
        await #expect(processExitsWith: .success) {
            do {
                try await make(Tag.self, ["name": "alone"]).cloud.save()
                exit(1)
            } catch let error as SyncError where error.code == .noController {
                exit(0)
            } catch {
                exit(2)
            }
        }
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let tag = make(Tag.self, ["name": "proxied"])
            a.store.insert(tag)
            let record = try await a.sync.withCurrent { try await tag.cloud.save() }
            #expect(record?.recordID.recordName == tag.syncID)

            // update(from:fetchReferences:) fills an entity and fetches what it references.
            let b = try world.device("b")
            let folder = make(Folder.self, ["name": "F"])
            let note = make(Note.self, ["title": "N"])
            note["folder"] = folder
            a.store.insert(folder, note)
            let saved = try #require(try await a.cloud(note).save())
            let copy = Note()
            b.store.insert(copy)
            try await b.cloud(copy).update(from: saved, fetchReferences: true)
            #expect(copy.title == "N" && copy.folder?.name == "F" && copy.syncID == note.syncID)
        }
    }

    /// The sync journal is on by default, as in ZenCloudKit, and the debug switch turns it off and on.
    @Test func debugLoggingSwitch() async throws {
        try await SyncWorld.run { world in
            let journal = InMemoryLogHandler()
            let a = try world.device("a", logger: Logger(label: "sync", level: .info, handler: journal))
            let first = make(Tag.self, ["name": "first"])
            let quiet = make(Tag.self, ["name": "quiet"])
            let loud = make(Tag.self, ["name": "loud"])
            a.store.insert(first, quiet, loud)
            try await a.cloud(first).save()
            #expect(journal.entries.contains { $0.message == "saved Tag \(first.syncID ?? "")" })
            await a.sync.setDebugLogging(false)
            try await a.cloud(quiet).save()
            #expect(!journal.entries.contains { $0.message == "saved Tag \(quiet.syncID ?? "")" })
            await a.sync.setDebugLogging(true)
            try await a.cloud(loud).save()
            #expect(journal.entries.contains { $0.message == "saved Tag \(loud.syncID ?? "")" })
        }
    }

    /// Syncs started at once fetch one after the other: the changes are delivered once.
    @Test func concurrentSyncsDeliverOnce() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let b = try world.device("b")
            try await b.sync.sync()
            let tags = (0..<5).map { make(Tag.self, ["name": "t\($0)"]) }
            for tag in tags { a.store.insert(tag) }
            try await a.sync.withCurrent {
                for tag in tags { try await tag.cloud.save() }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 { group.addTask { _ = try await b.sync.sync() } }
                try await group.waitForAll()
            }
            let delivered = b.store.deliveries.flatMap { $0.inserted + $0.updated }
            #expect(delivered.count == 5)
            #expect(b.store.all(Tag.self).count == 5)
        }
    }
}
