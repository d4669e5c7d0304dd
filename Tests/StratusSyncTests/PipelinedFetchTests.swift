import Foundation
import StratusClient
import StratusSync
import StratusTesting
import StratusWire
import Synchronization
import Testing

/// A long fetch delivered in parts while the next part is fetched (Documentation/0009, decision 48):
/// every part commits its own token, and a fetch cancelled or a store that did not commit (a crash)
/// goes on from the last committed part without losing or duplicating anything.
@Suite struct PipelinedFetchTests {
    static let notes = 600
    static let folders = 6
    /// One page (200 records) per part: 606 records are four parts.
    static func onePagePerPart(_ configuration: inout SyncConfiguration) { configuration.fetchBatchSize = 200 }

    /// Notes in folders, written through the SDK with every note before every folder, so the notes of
    /// the first parts reference folders that arrive in the last one.
    static func seed(_ world: SyncWorld) async throws {
        let container = Container(
            identifier: TestCloudKitServer.container, environment: .development, serverURL: world.server.http.url(""),
            authentication: .none, transport: SyncWorld.sharedTransport)
        let database = container.privateCloudDatabase
        let zone = ZoneID(zoneName: "StratusSync")
        _ = try await database.save(RecordZone(zoneID: zone))
        var records: [StratusClient.Record] = (0..<notes).map { index in
            var note = StratusClient.Record(recordType: "Note", recordID: RecordID(recordName: "note-\(index)", zoneID: zone))
            note["title"] = FieldValue.string("note \(index)")
            note["folder"] = FieldValue.reference(Reference(RecordID(recordName: "folder-\(index % folders)", zoneID: zone)))
            return note
        }
        for index in 0..<folders {
            var folder = StratusClient.Record(recordType: "Folder", recordID: RecordID(recordName: "folder-\(index)", zoneID: zone))
            folder["name"] = FieldValue.string("folder \(index)")
            records.append(folder)
        }
        for start in stride(from: 0, to: records.count, by: 200) {
            let results = try await database.modifyRecords(
                saving: Array(records[start..<min(start + 200, records.count)]), deleting: [], atomically: false)
            for case .failure(let error) in results.saveResults.values { throw error }
        }
    }

    /// Every note once, in its folder, and every folder once.
    static func expectIntact(_ store: MemoryStore) {
        let notes = store.all(Note.self)
        #expect(notes.count == Self.notes)
        #expect(Set(notes.compactMap(\.syncID)).count == Self.notes)
        #expect(store.all(Folder.self).count == folders)
        let filed = notes.filter { note in
            guard let index = note.syncID.flatMap({ Int($0.dropFirst("note-".count)) }) else { return false }
            return note.title == "note \(index)" && note.folder?.name == "folder \(index % folders)"
        }
        #expect(filed.count == Self.notes)
    }

    /// The names of the records a device's deliveries inserted.
    static func inserted(_ store: MemoryStore) -> [String] {
        store.deliveries.flatMap { $0.inserted.map(\.record.recordID.recordName) }
    }

    /// Closes `device`, relaunches it on its store and bookkeeping and syncs: the relaunch inserts
    /// exactly the records `before` (those inserted until then) lacks.
    static func relaunch(
        _ device: Device, in world: SyncWorld, after before: [String], configure: (inout SyncConfiguration) -> Void
    ) async throws -> Device {
        try await device.sync.close()
        let relaunched = try world.device(device.name, store: device.store, bookkeeping: device.bookkeepingPath, configure: configure)
        try await relaunched.sync.sync()
        let after = inserted(device.store).dropFirst(before.count)
        #expect(Set(before).isDisjoint(with: after))
        #expect(Set(before).union(after).count == notes + folders)
        expectIntact(device.store)
        return relaunched
    }

    @Test func aLongFetchArrivesInPartsWithEveryReferenceRelinked() async throws {
        try await SyncWorld.run { world in
            try await Self.seed(world)
            let b = try world.device("b", configure: Self.onePagePerPart)
            let changes = try await b.sync.sync()
            #expect(b.store.deliveries.count == 4)
            #expect(changes.inserted.count == Self.notes + Self.folders)
            Self.expectIntact(b.store)
            let status = await b.sync.status
            #expect(status.isCaughtUp && status.lastSyncDate != nil)
            #expect(try await b.sync.sync().isEmpty)
            try await b.sync.close()
        }
    }

    /// The token expires between two parts (the server compacted its log meanwhile): the whole zone is
    /// fetched again, and the sync reports every insertion once — the first part's too, which it delivered
    /// before the refusal — with nothing inserted twice.
    @Test func aTokenThatExpiresBetweenPartsStillReportsEveryChangeOnce() async throws {
        try await SyncWorld.run { world in
            try await Self.seed(world)
            let network = TokenExpiringTransport(SyncWorld.sharedTransport)
            network.expireNextToken()  // the first request carries none: the second part's is refused
            let b = try world.device("b", network: network, configure: Self.onePagePerPart)
            let changes = try await b.sync.sync()
            let inserted = changes.inserted.map(\.record.recordID.recordName)
            #expect(inserted.count == Self.notes + Self.folders)
            #expect(Set(inserted).count == inserted.count)
            // The whole zone's pass re-applies what the first part inserted (a full fetch re-applies every record).
            #expect(Set(changes.updated.map(\.record.recordID.recordName)).isSubset(of: inserted) && changes.deleted.isEmpty)
            #expect(Self.inserted(b.store).count == Self.notes + Self.folders, "each entity inserted once")
            Self.expectIntact(b.store)
            #expect(try await b.sync.sync().isEmpty)
            try await b.sync.close()
        }
    }

    /// The sync is cancelled while the third part is being fetched: the two parts before it are
    /// committed; a relaunch fetches the rest only (nothing inserted twice, nothing missing).
    @Test func aFetchCancelledMidPipelineResumesAfterARelaunch() async throws {
        try await SyncWorld.run { world in
            try await Self.seed(world)
            let gate = ChangeFeedGate(holdingRequest: 3)
            let store = MemoryStore()
            let b = try world.device("b", store: store, network: gate, configure: Self.onePagePerPart)
            let running = Task { try await b.sync.sync() }
            while gate.held == 0 || store.deliveries.count < 2 { try await Task.sleep(for: .milliseconds(5)) }
            running.cancel()
            await #expect(throws: (any Error).self) { try await running.value }
            #expect(store.deliveries.count == 2)
            let before = Self.inserted(store)
            #expect(before.count == 400)
            let relaunched = try await Self.relaunch(b, in: world, after: before, configure: Self.onePagePerPart)
            try await relaunched.sync.close()
        }
    }

    /// The store saves a part but the process ends before `finishSync` (a crash between the two): no
    /// later part is delivered, and after a relaunch that part comes again, applied to the entities
    /// the store already holds, then the rest.
    @Test func aPartStoredButNotCommittedComesAgainWithoutDuplicates() async throws {
        try await SyncWorld.run { world in
            try await Self.seed(world)
            let store = MemoryStore()
            store.autoFinish = false
            let b = try world.device("b", store: store, configure: Self.onePagePerPart)
            try await b.sync.sync()
            #expect(store.deliveries.count == 1)
            let first = Self.inserted(store)
            #expect(first.count == 200)
            try await b.sync.close()

            store.autoFinish = true
            let relaunched = try world.device("b", store: store, bookkeeping: b.bookkeepingPath, configure: Self.onePagePerPart)
            try await relaunched.sync.sync()
            let again = try #require(store.deliveries.dropFirst().first)
            #expect(Set(again.updated.map(\.record.recordID.recordName)).isSuperset(of: first))
            #expect(Set(Self.inserted(store)).count == Self.inserted(store).count)
            Self.expectIntact(store)
            try await relaunched.sync.close()
        }
    }
}

/// Holds the `n`th `changes/zone` request (and every later one) until its task is cancelled.
final class ChangeFeedGate: HTTPTransport {
    private let holding: Int
    private let requests = Mutex(0)

    init(holdingRequest holding: Int) {
        self.holding = holding
    }

    /// How many requests are being held.
    var held: Int { max(0, requests.withLock { $0 } - holding + 1) }

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if request.url.path.hasSuffix("/changes/zone"),
            requests.withLock({
                $0 += 1; return $0
            }) >= holding
        {
            try await Task.sleep(for: .seconds(3_600))
        }
        return try await SyncWorld.sharedTransport.send(request)
    }
}
