import Foundation
import StratusStore
@testable import StratusStoreSync
import Testing

/// The pure fold of persistent-history changes into uploads.
@Suite struct ChangeCollectorTests {
    let note1 = ObjectID(stringRepresentation: "Note/p1")!
    let note2 = ObjectID(stringRepresentation: "Note/p2")!
    let other = ObjectID(stringRepresentation: "Draft/p1")!
    let saved = Date(timeIntervalSince1970: 1_750_000_000)

    func collector() -> ChangeCollector {
        ChangeCollector(syncedKeys: ["Note": ["title", "body", "folder"]])
    }

    /// An insertion saves every key; later updates of it keep "every key".
    @Test func insertionThenUpdateSavesEverything() {
        var collector = collector()
        collector.add([HistoryChange(objectID: note1, kind: .inserted, changedKeys: [])], at: saved)
        collector.add([HistoryChange(objectID: note1, kind: .updated, changedKeys: ["title"])], at: saved)
        #expect(collector.wantedSaves.map(\.0) == [note1])
        #expect(collector.wantedSaves.first?.1 == nil)
    }

    /// Updates save the union of their synced keys; unsynced keys and unsynced entities are ignored.
    @Test func updatesUnionTheirSyncedKeys() {
        var collector = collector()
        collector.add(
            [
                HistoryChange(objectID: note1, kind: .updated, changedKeys: ["title", "scratch"]),
                HistoryChange(objectID: note2, kind: .updated, changedKeys: ["notes"]),
                HistoryChange(objectID: other, kind: .inserted, changedKeys: []),
            ], at: saved)
        collector.add([HistoryChange(objectID: note1, kind: .updated, changedKeys: ["body"])], at: saved)
        #expect(collector.wantedSaves.map(\.0) == [note1])
        #expect(collector.wantedSaves.first?.1 == ["title", "body"])
        #expect(collector.deletions.isEmpty)
    }

    /// A deletion drops the object's save and is reported, in order.
    @Test func deletionDropsTheSave() {
        var collector = collector()
        collector.add(
            [
                HistoryChange(objectID: note1, kind: .updated, changedKeys: ["title"]),
                HistoryChange(objectID: note2, kind: .inserted, changedKeys: []),
            ], at: saved)
        collector.add([HistoryChange(objectID: note1, kind: .deleted, changedKeys: [])], at: saved)
        #expect(collector.wantedSaves.map(\.0) == [note2])
        #expect(collector.deletions == [note1])
    }

    /// Each save carries the time of the latest transaction that changed the object (its history
    /// timestamp), not the time of the capture: "later change wins" compares edit times.
    @Test func savesCarryTheTimeOfTheirLatestEdit() {
        var collector = collector()
        collector.add([HistoryChange(objectID: note1, kind: .updated, changedKeys: ["title"])], at: saved)
        collector.add([HistoryChange(objectID: note2, kind: .inserted, changedKeys: [])], at: saved.addingTimeInterval(5))
        collector.add([HistoryChange(objectID: note1, kind: .updated, changedKeys: ["body"])], at: saved.addingTimeInterval(9))
        collector.add([HistoryChange(objectID: note1, kind: .updated, changedKeys: ["scratch"])], at: saved.addingTimeInterval(20))
        #expect(collector.editTimes[note1] == saved.addingTimeInterval(9))
        #expect(collector.editTimes[note2] == saved.addingTimeInterval(5))
    }
}
