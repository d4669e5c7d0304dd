import Foundation
import StratusClient
@testable import StratusSync
import StratusWire
import Synchronization
import Testing

/// A bulk upload settles each `records/modify` answer at once: the bases and outbox removals in one
/// transaction, then the delegate hears of the batch's saves in one call off the actor (Documentation/0009,
/// "Bulk upload: the per-note costs"). Nothing of the per-save promises may change with it.
@Suite struct SyncBulkReportTests {
    /// 450 notes (batches of 200, 200 and 50): every save reaches `didSave` once, with its own record,
    /// in the order queued, and each note holds its sync ID and server date when `upload` returns;
    /// nothing stays queued and a second device receives them all.
    @Test func everySaveOfABulkUploadIsReportedOnceInOrderWithItsRecord() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            try await a.sync.sync()
            let notes = (0..<450).map { make(Note.self, ["title": "note \($0)"]) }
            for note in notes { a.store.insert(note) }

            #expect(try await a.sync.upload(notes.map { .save($0, keys: nil) }) == 450)

            let saves = a.store.state.withLock { $0.saves }
            #expect(saves.count == 450)
            #expect(saves.allSatisfy { $0.1 == nil })
            #expect(saves.map(\.0) == notes.map(\.syncID))
            #expect(notes.allSatisfy { $0.syncID != nil && $0.modified != nil })
            #expect(await a.sync.status.pendingCount == 0)

            let b = try world.device("b")
            try await b.sync.sync()
            #expect(Set(b.store.all(Note.self).compactMap(\.title)) == Set(notes.compactMap(\.title)))
            try await a.sync.close()
            try await b.sync.close()
        }
    }

    /// A batch with a conflicting record in the middle: the others are reported saved in the first
    /// round and the resolved one after its second request, each once.
    @Test func aConflictInsideABatchIsReportedOnceAfterTheOthers() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let b = try world.device("b")
            let shared = make(Note.self, ["title": "shared"])
            a.store.insert(shared)
            _ = try await a.cloud(shared).save()
            try await b.sync.sync()
            let onB = try #require(b.store.find(Note.self, shared.syncID))
            onB.setValue("edited on b", forKey: "title")
            _ = try await b.cloud(onB).save()

            shared.setValue("edited on a", forKey: "body")
            let before = (0..<5).map { make(Note.self, ["title": "before \($0)"]) }
            let after = (0..<5).map { make(Note.self, ["title": "after \($0)"]) }
            for note in before + after { a.store.insert(note) }
            a.store.state.withLock { $0.saves = [] }
            let changes: [SyncUpload] = (before + [shared] + after).map { .save($0, keys: nil) }
            #expect(try await a.sync.upload(changes) == 11)

            let saves = a.store.state.withLock { $0.saves }
            #expect(saves.map(\.0) == (before + after + [shared]).map(\.syncID))
            #expect(saves.allSatisfy { $0.1 == nil })
            #expect(await a.sync.status.pendingCount == 0)
            try await b.sync.sync()
            let merged = try #require(b.store.find(Note.self, shared.syncID))
            #expect(merged.title == "edited on b")
            #expect(merged.body == "edited on a")
            try await a.sync.close()
            try await b.sync.close()
        }
    }
}
