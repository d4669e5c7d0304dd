import Foundation
import StratusClient
import StratusStore
@testable import StratusStoreSync
@testable import StratusSync
import StratusWire
import Testing

/// The write-backs of uploads (sync IDs and server dates) — the delayed one, and the capture's — and
/// a delivery meeting on one object: each writes what it set, and neither takes the other's values
/// (Documentation/0018, 0009 decision 35).
@Suite struct UploadedWriteBackTests {
    /// A delivery (a fetch, or a resolved conflict written back) sets the record's values on the
    /// object, then saves them; the write-back of an upload firing in between writes the sync ID and
    /// date only, and leaves the delivered value for the delivery's save. It used to take every dirty
    /// value and drop the others: the resolved conflict never reached the store (under load, the
    /// 20 ms delay of that write-back fell in the window, and `StoreSyncLifecycleTests`' resolved
    /// conflicts failed).
    @Test func theWriteBackOfAnUploadLeavesADeliveredValueToTheDelivery() async throws {
        try await StoreSyncWorld.run { world in
            let a = try await world.device("a")
            try await a.edit { context in
                let note = context.insert(entity: "Note")
                note.setValue("Groceries", forKey: "title")
                note.setValue("mine", forKey: "body")
            }
            let stored = try await a.read { context in try context.fetchObjectIDs(FetchRequest(entityName: "Note")) }
            let bridge = await a.sync.bridge
            let first = try #require(stored.first)
            let object = try #require(bridge.object(for: first))
            #expect(stored.count == 1)

            object.setValue("theirs", forKey: "body")  // a delivery's value, its save still to come
            object.setValue("record-1", forKey: "syncID")  // what the upload's answer set
            try await bridge.writeBack([object])

            let held = try await a.read { context in
                try context.fetch(FetchRequest(entityName: "Note")).map {
                    "\($0.value(forKey: "syncID") as? String ?? "-")|\($0.value(forKey: "body") as? String ?? "-")"
                }
            }
            #expect(held == ["record-1|mine"])
            let left = object.takeDirtyValues()
            #expect(left.keys.sorted() == ["body"])
            #expect(left["body"] as? String == "theirs")
            try await a.sync.stop()
        }
    }

    /// A capture writes back what its uploads set (sync IDs and server dates) on the objects it
    /// shares with deliveries. A delivery in flight — here one that brings a new folder and moves a
    /// note into it — has set its values on the note and not saved them yet; the capture's
    /// write-back used to take every dirty value: it wrote the reference to the folder, which is not
    /// in the store yet, as none, and left the delivery nothing to save for the note, which lost its
    /// folder for good (the delivery's commit moved the token past it).
    @Test func aCaptureWritingBackLeavesAnInFlightDeliveryItsValues() async throws {
        try await StoreSyncWorld.run { world in
            let a = try await world.device("a")
            try await a.edit { context in
                context.insert(entity: "Note").setValue("Groceries", forKey: "title")
            }
            let stored = try await a.read { context in try context.fetchObjectIDs(FetchRequest(entityName: "Note")) }
            let bridge = await a.sync.bridge
            let first = try #require(stored.first)
            let note = try #require(bridge.object(for: first))

            // The delivery applies its records to the bridge's objects …
            let folder = StoreObject<FolderSync>(bridge: bridge, objectID: nil)
            folder.setValue("folder-1", forKey: "syncID")
            folder.setValue("Errands", forKey: "name")
            note.setValue("Groceries for two", forKey: "title")
            note.setValue(folder, forKey: "folder")
            // … the capture writes back meanwhile …
            try await a.sync.writeBack()
            // … and the delivery saves what it applied.
            let folderRecord = StratusClient.Record(recordType: "Folder", recordID: RecordID(recordName: "folder-1"))
            let noteRecord = StratusClient.Record(recordType: "Note", recordID: RecordID(recordName: "note-1"))
            var changes = SyncChanges()
            changes.inserted = [SyncChanges.Applied(entity: folder, record: folderRecord)]
            changes.updated = [SyncChanges.Applied(entity: note, record: noteRecord)]
            try await a.sync.delegate.apply(changes)

            let held = try await a.read { context in
                try context.fetch(FetchRequest(entityName: "Note")).map { note in
                    let folder = (note.value(forKey: "folder") as? ManagedObject)?.value(forKey: "name") as? String
                    return "\(note.value(forKey: "title") as? String ?? "-")|\(folder ?? "no folder")"
                }
            }
            #expect(held == ["Groceries for two|Errands"])
            try await a.sync.stop()
        }
    }
}
