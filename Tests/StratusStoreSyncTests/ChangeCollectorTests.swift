import StratusStore
@testable import StratusStoreSync
import Testing

/// The pure fold of persistent-history changes into uploads.
@Suite struct ChangeCollectorTests {
    let note1 = ObjectID(stringRepresentation: "Note/p1")!
    let note2 = ObjectID(stringRepresentation: "Note/p2")!
    let other = ObjectID(stringRepresentation: "Draft/p1")!

    func collector() -> ChangeCollector {
        ChangeCollector(syncedKeys: ["Note": ["title", "body", "folder"]])
    }

    /// An insertion saves every key; later updates of it keep "every key".
    @Test func insertionThenUpdateSavesEverything() {
        var collector = collector()
        collector.add([HistoryChange(objectID: note1, kind: .inserted, changedKeys: [])])
        collector.add([HistoryChange(objectID: note1, kind: .updated, changedKeys: ["title"])])
        #expect(collector.wantedSaves.map(\.0) == [note1])
        #expect(collector.wantedSaves.first?.1 == nil)
    }

    /// Updates save the union of their synced keys; unsynced keys and unsynced entities are ignored.
    @Test func updatesUnionTheirSyncedKeys() {
        var collector = collector()
        collector.add([
            HistoryChange(objectID: note1, kind: .updated, changedKeys: ["title", "scratch"]),
            HistoryChange(objectID: note2, kind: .updated, changedKeys: ["notes"]),
            HistoryChange(objectID: other, kind: .inserted, changedKeys: []),
        ])
        collector.add([HistoryChange(objectID: note1, kind: .updated, changedKeys: ["body"])])
        #expect(collector.wantedSaves.map(\.0) == [note1])
        #expect(collector.wantedSaves.first?.1 == ["title", "body"])
        #expect(collector.deletions.isEmpty)
    }

    /// A deletion drops the object's save and is reported, in order.
    @Test func deletionDropsTheSave() {
        var collector = collector()
        collector.add([
            HistoryChange(objectID: note1, kind: .updated, changedKeys: ["title"]),
            HistoryChange(objectID: note2, kind: .inserted, changedKeys: []),
        ])
        collector.add([HistoryChange(objectID: note1, kind: .deleted, changedKeys: [])])
        #expect(collector.wantedSaves.map(\.0) == [note2])
        #expect(collector.deletions == [note1])
    }
}
