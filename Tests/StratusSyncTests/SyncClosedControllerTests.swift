import Foundation
import StratusClient
import StratusSync
import StratusTesting
import Testing

/// A controller used after ``SyncController/close()`` answers every call with
/// ``SyncError/Code/closed``: no crash, no request, no background work started again.
@Suite struct SyncClosedControllerTests {
    @Test func everyCallAfterCloseThrowsClosedAndStartsNothing() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let note = make(Note.self, ["title": "Plan"])
            a.store.insert(note)
            try await a.cloud(note).save()
            try await a.sync.close()

            await Self.expectClosed("sync()") { _ = try await a.sync.sync() }
            await Self.expectClosed("resume()") { try await a.sync.resume() }
            await Self.expectClosed("upload(_:)") { _ = try await a.sync.upload([.save(note, keys: nil)]) }
            await Self.expectClosed("entity.cloud.save()") { _ = try await a.cloud(note).save() }
            await Self.expectClosed("entity.cloud.delete()") { try await a.cloud(note).delete() }
            await Self.expectClosed("syncEntities()") { _ = try await a.sync.syncEntities() }
            await Self.expectClosed("startPush()") {
                try await a.sync.startPush(notifications: .fastTests, listeningTimeout: .seconds(5))
            }
            #expect(await a.sync.isPushing == false)
            // A status stream asked for after close gives the last status and ends.
            var statuses = 0
            for await _ in await a.sync.statusUpdates() { statuses += 1 }
            #expect(statuses == 1)
            // Closing twice is harmless.
            try await a.sync.close()
        }
    }

    static func expectClosed(_ call: String, _ body: () async throws -> Void) async {
        do {
            try await body()
            Issue.record("\(call) after close() returned normally")
        } catch let error as SyncError {
            #expect(error.code == .closed, "\(call): \(error)")
        } catch {
            Issue.record("\(call) after close() threw \(error), not SyncError.closed")
        }
    }
}
