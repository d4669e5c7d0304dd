import Foundation
import StratusClient
@testable import StratusSync
import StratusWire
import Synchronization
import Testing

/// A `save()` waits for the drain that uploads its change and answers with that change's own
/// outcome, however long the drain and whoever else waits (Documentation/0009, decision 38).
@Suite struct SyncWaitingSaveTests {
    /// Device A with its uploads held, and the `save()` of a new note waiting for the first of them.
    private static func saveHeld(
        _ world: SyncWorld, title: String
    ) async throws -> (Device, HeldModifyTransport, Note, Task<StratusClient.Record?, any Error>) {
        let held = HeldModifyTransport()
        let a = try world.device("a", network: held)
        try await a.sync.sync()  // the zone exists: the save goes straight to its upload
        let note = make(Note.self, ["title": title])
        a.store.insert(note)
        let save = Task { try await a.cloud(note).save() }
        try await wait(until: { held.isHolding }, unlessEnded: save, "the save's upload was not held")
        return (a, held, note, save)
    }

    /// Waits until `condition` holds; throws instead of waiting forever when `task` ends first.
    private static func wait<Value>(
        until condition: () async -> Bool, unlessEnded task: Task<Value, any Error>, _ what: String
    ) async throws {
        let ended = Mutex(false)
        Task {
            _ = await task.result
            ended.withLock { $0 = true }
        }
        while await !condition() {
            if ended.withLock({ $0 }) { throw TestFailure("\(what): the task ended first with \(await task.result)") }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// The old controller kept every outcome in one dictionary by outbox sequence number and emptied
    /// it at the end of a drain that had settled more than 10,000 entries, so a `save()` that had
    /// waited through such a drain read `nil` — "still queued" — for a change the server had.
    @Test func aSaveWaitingThroughADrainOfMoreThanTenThousandEntriesGetsItsRecord() async throws {
        try await SyncWorld.run { world in
            let (a, held, first, save) = try await Self.saveHeld(world, title: "first")  // the drain is under way

            // Deletions of records the server never had: cheap to send, and each settles an entry.
            let bulk = (0..<10_000).map { SyncUpload.delete(make(Note.self, ["syncID": "never-uploaded-\($0)"])) }
            let upload = Task { try await a.sync.upload(bulk) }
            try await Self.wait(until: { await a.sync.status.pendingCount >= 10_001 }, unlessEnded: upload, "the bulk was not queued")
            held.open()  // the running drain goes on through the 10,000 queued behind `first`

            #expect(try await upload.value == 10_000)
            let record = try await save.value
            #expect(record?.recordID.recordName == first.syncID)
            #expect(record?.fields["title"] == FieldValue.string("first"))
            #expect(await a.sync.status.pendingCount == 0)
            try await a.sync.close()
        }
    }

    /// Saves of different records made at once each hear of their own record.
    @Test func concurrentSavesEachGetTheirOwnRecord() async throws {
        try await SyncWorld.run { world in
            let a = try world.device("a")
            let notes = (0..<24).map { make(Note.self, ["title": "note \($0)"]) }
            for note in notes { a.store.insert(note) }
            let answers = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for (index, note) in notes.enumerated() {
                    group.addTask { (index, try await a.cloud(note).save()?.recordID.recordName) }
                }
                var answers: [Int: String?] = [:]
                for try await (index, name) in group { answers[index] = name }
                return answers
            }
            for (index, note) in notes.enumerated() {
                #expect(answers[index] == .some(note.syncID), "note \(index)")
            }
            try await a.sync.close()
        }
    }

    /// A caller whose task is cancelled while it waits is woken at once with `CancellationError`;
    /// its change stays queued and the drain uploads it.
    @Test func aCancelledSaveStopsWaitingAndItsChangeIsStillUploaded() async throws {
        try await SyncWorld.run { world in
            let (a, held, note, save) = try await Self.saveHeld(world, title: "cancelled while waiting")
            save.cancel()
            // Answered while the request it waits for is still held (the old controller answered
            // only when the drain ended: the gate opens after a generous wait so that fails, not hangs).
            let answered = Mutex(false)
            let watcher = Task {
                _ = await save.result
                answered.withLock { $0 = true }
            }
            for _ in 0..<3_000 where !answered.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
            #expect(answered.withLock { $0 }, "the cancelled save was not answered while its upload was held")
            #expect(held.isHolding)
            held.open()
            await watcher.value
            await #expect(throws: CancellationError.self) { try await save.value }
            await a.sync.waitForIdle()
            #expect(await a.sync.status.pendingCount == 0)
            let b = try world.device("b")
            try await b.sync.sync()
            #expect(b.store.find(Note.self, note.syncID)?.title == "cancelled while waiting")
            try await a.sync.close()
            try await b.sync.close()
        }
    }
}

/// A transport that holds the first `records/modify` request until ``open()``, so a test can act
/// while an upload is under way.
final class HeldModifyTransport: HTTPTransport {
    private struct State {
        var holding = false
        var opened = false
    }

    private let state = Mutex(State())

    /// Whether the first upload is being held now.
    var isHolding: Bool { state.withLock { $0.holding } }

    /// Lets the held request (and every later one) through.
    func open() { state.withLock { $0.opened = true } }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let hold = request.url.path.hasSuffix("/records/modify") && state.withLock { $0.opened == false }
        if hold {
            state.withLock { $0.holding = true }
            while state.withLock({ !$0.opened }) { try await Task.sleep(for: .milliseconds(5)) }
            state.withLock { $0.holding = false }
        }
        return try await SyncWorld.sharedTransport.send(request)
    }
}
