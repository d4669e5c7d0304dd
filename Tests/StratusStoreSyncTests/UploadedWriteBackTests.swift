import Foundation
import StratusStore
@testable import StratusStoreSync
import StratusSync
import Testing

/// The delayed write-back of uploads (sync IDs and server dates) and a delivery meeting on one
/// object: each writes what it set, and neither takes the other's values (Documentation/0018).
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
            try await bridge.writeBack([object], uploadedOnly: true)

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
}
